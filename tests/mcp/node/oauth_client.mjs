// An MCP client of the official TypeScript SDK that starts with no credential at all: the 401 of
// /mcp leads its OAuth client provider to the protected resource metadata, the IdP's metadata,
// dynamic client registration and the authorization code flow with PKCE; the "browser" of this
// test (below) signs in on the IdP's login page and hands the code back. Then it lists the tools
// and calls one. Prints one JSON line: the tools, the tool's result and what the flow went
// through.
//
//   node oauth_client.mjs      env: MCP_URL, LOGIN (the person at the IdP's login page)
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const REDIRECT = "http://127.0.0.1:9/oauth/callback"; // never opened: the code is read from it
const seen = [];

class Provider {
  #client;
  #tokens;
  #verifier;
  code;

  get redirectUrl() { return REDIRECT; }
  get clientMetadata() {
    return {
      client_name: "outrider-oauth-test",
      redirect_uris: [REDIRECT],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }
  clientInformation() { return this.#client; }
  saveClientInformation(info) { seen.push("registered"); this.#client = info; }
  tokens() { return this.#tokens; }
  saveTokens(tokens) { seen.push("token"); this.#tokens = tokens; }
  saveCodeVerifier(verifier) { this.#verifier = verifier; }
  codeVerifier() { return this.#verifier; }
  async redirectToAuthorization(url) {
    seen.push(`authorize resource=${url.searchParams.get("resource")}`);
    this.code = await signInAt(url, process.env.LOGIN);
  }
}

// What a person's browser does: follow the IdP's redirects, keep its cookies, fill its login
// form, and stop at the redirect back to the client with the code.
async function signInAt(start, login) {
  const cookies = new Map();
  let url = start.toString();
  let body;
  for (let hop = 0; hop < 10; hop += 1) {
    if (url.startsWith(REDIRECT)) return new URL(url).searchParams.get("code");
    const headers = { cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join("; ") };
    if (body) headers["content-type"] = "application/x-www-form-urlencoded";
    const answer = await fetch(url, { method: body ? "POST" : "GET", headers, body, redirect: "manual" });
    for (const cookie of answer.headers.getSetCookie()) {
      const [pair] = cookie.split(";");
      const at = pair.indexOf("=");
      cookies.set(pair.slice(0, at), pair.slice(at + 1));
    }
    body = undefined;
    if (answer.status >= 300 && answer.status < 400) {
      url = new URL(answer.headers.get("location"), url).toString();
      continue;
    }
    const page = await answer.text();
    const form = page.match(/<form[^>]*action="([^"]+)"/);
    if (!form || !page.includes('name="login"')) throw new Error(`no login form at ${url}: ${page.slice(0, 300)}`);
    seen.push("login page");
    url = new URL(form[1], url).toString();
    body = new URLSearchParams({ prompt: "login", login, password: "any" }).toString();
  }
  throw new Error("the IdP never sent the browser back");
}

const provider = new Provider();
const transport = () => new StreamableHTTPClientTransport(new URL(process.env.MCP_URL), { authProvider: provider });
const client = new Client({ name: "outrider-oauth-test", version: "1.0.0" });
try {
  await client.connect(transport());
  throw new Error("connected without signing in");
} catch (error) {
  if (!(error instanceof UnauthorizedError)) throw error;
  seen.push("401");
}
const pending = transport();
await pending.finishAuth(provider.code);
await client.connect(pending);
const tools = await client.listTools();
const listed = await client.callTool({ name: "list_runs", arguments: { page_size: 5 } });
console.log(JSON.stringify({ names: tools.tools.map((t) => t.name), listed, seen }));
await client.close();
