// An interactive automate run through the typed client: start it on the Interact stream, answer
// the form request on the same stream, print what happened. Compiled with tsc --strict by
// test_typescript_client.py, so a type error in the package's declarations fails the test.
//   node interactive.js <baseUrl>   (OUTRIDER_DATA: the run's data; OUTRIDER_ANSWERS: by label)
import { createOutriderClient, openInteraction } from "@outrider/client";
import type { InteractiveFormDataRequest } from "@outrider/client/gen/outrider/v1/automate_events_pb";

const answers: Record<string, string> = JSON.parse(process.env.OUTRIDER_ANSWERS ?? "{}");

function answerTo(request: InteractiveFormDataRequest) {
  const fields = request.fields.map((field) => ({
    ref: field.ref,
    value: answers[field.label] ?? answers[field.ref] ?? "",
  }));
  return { action: { case: "formData" as const, value: { requestId: request.requestId, fields } } };
}

async function main(baseUrl: string): Promise<void> {
  const client = createOutriderClient({ baseUrl, apiKey: process.env.OUTRIDER_API_KEY });
  const data = JSON.parse(process.env.OUTRIDER_DATA ?? "{}");
  const start = { automate: { task: "log in", url: "http://127.0.0.1/login", data, interactive: true } };
  const interaction = openInteraction(client, {
    action: { case: "start", value: { params: { case: "automate", value: start.automate } } },
  });
  let finalAnswer = "";
  let runName = "";
  for await (const response of interaction.responses) {
    if (response.kind.case === "answerResult") {
      const result = response.kind.value;
      console.log(`answer ${result.accepted ? "accepted" : `refused: ${result.reason}`}`);
    } else if (response.kind.case === "event") {
      const event = response.kind.value;
      runName = event.run;
      const automate = event.payload.case === "automate" ? event.payload.value.event : undefined;
      console.log(`#${event.sequence} ${automate?.case ?? event.payload.case}`);
      if (automate?.case === "interactiveFormDataRequest") {
        console.log(`form requested: ${automate.value.fields.map((f) => f.label).join(", ")}`);
        interaction.send(answerTo(automate.value));
      } else if (automate?.case === "complete") {
        finalAnswer = automate.value.finalAnswer ?? "";
      }
    }
  }
  interaction.close();
  await handBack(client, runName);
  await vault(client);
  console.log(`final answer: ${finalAnswer}`);
}

/** The browser service is there too: handing back a run that never had a takeover is refused. */
async function handBack(client: ReturnType<typeof createOutriderClient>, run: string): Promise<void> {
  try {
    await client.browser.handBack({ run, note: "nothing to do" });
    console.log("hand back: accepted");
  } catch (error) {
    console.log(`hand back: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** Profiles and credentials are there too: a credential set, then shown without its value. */
async function vault(client: ReturnType<typeof createOutriderClient>): Promise<void> {
  const secret = { username: "ada", password: "pw-from-typescript" };
  const made = await client.credentials.setCredential({
    name: "credentials/ts",
    origins: ["https://ts.example"],
    secret,
  });
  const listed = await client.profiles.listProfiles({});
  const shown = made.credential;
  console.log(
    `credential: ${shown?.name} created=${made.created} password=${shown?.hasPassword} ` +
      `profiles=${listed.profiles.length}`,
  );
}

await main(process.argv[2] ?? "http://localhost:50051");
