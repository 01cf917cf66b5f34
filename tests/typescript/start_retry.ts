// Starts through the typed client carry a request id and are retried with it. Compiled with tsc
// --strict by test_typescript_client.py, which drops the answer to the first createRun (and
// then cuts the connection) once the line "ready" is printed and "go" arrives on stdin.
//   node start_retry.js <baseUrl>
import * as readline from "node:readline/promises";
import { randomUUID } from "node:crypto";
import { createOutriderClient } from "@outrider/client";

const task = { case: "automate" as const, value: { task: "retry me", data: { steps: 1 } } };

async function main(baseUrl: string): Promise<void> {
  const client = createOutriderClient({ baseUrl, apiKey: process.env.OUTRIDER_API_KEY });
  await client.runs.listRuns({}); // connected: what is dropped next is the start's answer
  const lines = readline.createInterface({ input: process.stdin });
  console.log("ready");
  await lines.question("");
  const created = await client.runs.createRun({ params: task });
  console.log(`created ${created.run?.name}`);

  const requestId = randomUUID();
  const given = await client.runs.createRun({ params: task, requestId });
  const again = await client.runs.createRun({ params: task, requestId });
  const streamed = new Set<string>();
  for await (const response of client.runs.automate({ params: task.value, requestId })) {
    if (response.kind.case === "event") streamed.add(response.kind.value.run);
  }
  console.log(`given ${given.run?.name} ${again.run?.name} ${[...streamed].join(" ")}`);
  lines.close();
}

await main(process.argv[2] ?? "http://localhost:50051");
