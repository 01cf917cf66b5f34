// How the test clients' person answers an elicitation: a form by its fields' titles (VALUES, a
// JSON object), an approval with "approve once", an answer page by opening it.
export function accepted(params, values) {
  if (params.mode === "url") return { action: "accept" };
  const properties = params.requestedSchema.properties;
  if ("decision" in properties) return { action: "accept", content: { decision: "approve_once" } };
  const content = {};
  for (const [ref, spec] of Object.entries(properties)) content[ref] = values[spec.title];
  return { action: "accept", content };
}
