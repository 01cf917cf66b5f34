// A host whose person answers slowly, on the official TypeScript SDK's client over streamable
// HTTP: `automate` is called with an 8 s request timeout while the person takes 20 s over the
// form. The SDK gives up on the call and cancels it ("Request timed out"); the run must go on.
// The host reads the run with get_run (named by the call's first progress message), then,
// once the person is ready, follows it with get_run(wait), which asks the form again.
// Prints one JSON line: the timeout, the run as read meanwhile, the final result, what was
// asked and the progress messages.
//
//   node slow_person.mjs
//   env: MCP_URL, MCP_KEY, TASK, START_URL, MODEL, VALUES (JSON: form values by field title)
import { setTimeout as sleep } from "node:timers/promises";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema, ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { accepted } from "./person.mjs";

const REQUEST_TIMEOUT_MS = 8000;
const PERSON_TAKES_MS = 20000;
const env = process.env;

const client = new Client(
  { name: "outrider-slow-person", version: "1.0.0" },
  { capabilities: { elicitation: { form: {}, url: {} } } },
);
const asked = [];
let firstAsked = null;
client.setRequestHandler(ElicitRequestSchema, async (request, extra) => {
  const question = { message: request.params.message, withdrawn: false };
  asked.push(question);
  firstAsked ??= Date.now();
  const typing = firstAsked + PERSON_TAKES_MS - Date.now();
  if (typing > 0) {
    // the server withdraws the question when the call it came with is cancelled
    await sleep(typing, undefined, { signal: extra.signal }).catch(() => {
      question.withdrawn = true;
    });
  }
  return accepted(request.params, JSON.parse(env.VALUES));
});
const headers = { Authorization: `Bearer ${env.MCP_KEY}` };
await client.connect(new StreamableHTTPClientTransport(new URL(env.MCP_URL), { requestInit: { headers } }));
await client.listTools(); // the SDK checks results against the tools' output schemas

const progress = [];
const arguments_ = { task: env.TASK, url: env.START_URL, options: { model: env.MODEL } };
let timeout = null;
try {
  await client.callTool({ name: "automate", arguments: arguments_ }, CallToolResultSchema, {
    onprogress: (update) => progress.push(update.message),
    timeout: REQUEST_TIMEOUT_MS,
  });
} catch (error) {
  timeout = { code: error.code, message: error.message, after: Date.now() - firstAsked };
}
const run = /Started (runs\/[^;\s]+)/.exec(progress[0] ?? "")?.[1];
const meanwhile = await client.callTool({ name: "get_run", arguments: { run } });
await sleep(Math.max(0, firstAsked + PERSON_TAKES_MS - Date.now()));
const result = await client.callTool(
  { name: "get_run", arguments: { run, wait: true } },
  CallToolResultSchema,
  { timeout: 120000 },
);
console.log(JSON.stringify({ timeout, run, meanwhile, result, asked, progress }));
await client.close();
