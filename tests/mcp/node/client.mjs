// An MCP client of the official TypeScript SDK: connects to Outrider over streamable HTTP (/mcp,
// with a key) or stdio (`outrider mcp`), lists the tools, runs `automate` and answers the
// elicitations it gets, or declines them. Prints one JSON line: the result, what was asked and
// the progress messages.
//
//   node client.mjs http|stdio answer|decline
//   env: MCP_URL, MCP_TARGET, MCP_KEY, OUTRIDER (the outrider command), TASK, START_URL, MODEL,
//        VALUES (JSON: form values by field title)
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema, ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { accepted } from "./person.mjs";

const [transportKind, behaviour] = process.argv.slice(2);
const env = process.env;

function transport() {
  if (transportKind === "http") {
    const headers = { Authorization: `Bearer ${env.MCP_KEY}` };
    return new StreamableHTTPClientTransport(new URL(env.MCP_URL), { requestInit: { headers } });
  }
  return new StdioClientTransport({
    command: env.OUTRIDER,
    args: ["mcp", "--target", env.MCP_TARGET],
    env: { OUTRIDER_API_KEY: env.MCP_KEY },
  });
}

function answer(params) {
  if (behaviour === "decline") return { action: "decline" };
  return accepted(params, JSON.parse(env.VALUES));
}

const client = new Client(
  { name: "outrider-node-test", version: "1.0.0" },
  { capabilities: { elicitation: { form: {}, url: {} } } },
);
const asked = [];
client.setRequestHandler(ElicitRequestSchema, async (request) => {
  asked.push(request.params);
  return answer(request.params);
});
await client.connect(transport());
const tools = await client.listTools(); // also lets the SDK check results against output schemas
const progress = [];
const result = await client.callTool(
  { name: "automate", arguments: { task: env.TASK, url: env.START_URL, options: { model: env.MODEL } } },
  CallToolResultSchema,
  { onprogress: (update) => progress.push(update.message), timeout: 120000 },
);
const names = tools.tools.map((tool) => tool.name);
console.log(JSON.stringify({ names, result, asked, progress }));
await client.close();
