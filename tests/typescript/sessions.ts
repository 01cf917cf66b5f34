// A session through the typed client: created, two runs in it (one after the other), ended, and
// its stream read back. Compiled with tsc --strict by test_typescript_client.py.
//   node sessions.js <baseUrl>
import { createOutriderClient } from "@outrider/client";
import { RunKind } from "@outrider/client/gen/outrider/v1/run_pb";

async function main(baseUrl: string): Promise<void> {
  const client = createOutriderClient({ baseUrl });
  const { session } = await client.sessions.createSession({
    kind: RunKind.AUTOMATE,
    idleTimeout: { seconds: 60n },
  });
  const name = session?.name ?? "";
  for (const task of ["first", "second"]) {
    const params = { task, data: { steps: 1 } };
    for await (const response of client.runs.automate({ params, options: { session: name } })) {
      if (response.kind.case === "event") continue;
    }
  }
  const ended = await client.sessions.endSession({ name, reason: "done" });
  console.log(`ended ${ended.session?.runCount} runs`);
  const kinds: string[] = [];
  for await (const response of client.sessions.streamSessionEvents({ name })) {
    if (response.kind.case === "event") {
      const event = response.kind.value;
      kinds.push(event.invocation ? "run" : String(event.payload.case));
    }
  }
  console.log(`events ${[...new Set(kinds)].join(" ")} ${kinds.length}`);
}

await main(process.argv[2] ?? "http://localhost:50051");
