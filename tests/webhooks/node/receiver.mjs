// A webhook receiver as a Node.js service would write it: every delivery is verified with the
// Standard Webhooks reference library (npm `standardwebhooks`) against each secret given on the
// command line (during a rotation, both must verify). It prints its port, then one JSON line per
// delivery: {id, type, verified: [true|false per secret]}; it answers 204, or 401 when a secret
// does not verify.
import http from "node:http";
import { Webhook } from "standardwebhooks";

const secrets = process.argv.slice(2);
const server = http.createServer((request, response) => {
  const chunks = [];
  request.on("data", (chunk) => chunks.push(chunk));
  request.on("end", () => {
    const body = Buffer.concat(chunks).toString("utf8");
    const verified = secrets.map((secret) => {
      try {
        new Webhook(secret).verify(body, request.headers);
        return true;
      } catch {
        return false;
      }
    });
    let type = "";
    try {
      type = JSON.parse(body).type;
    } catch {}
    console.log(JSON.stringify({ id: request.headers["webhook-id"], type, verified }));
    response.writeHead(verified.every(Boolean) ? 204 : 401);
    response.end();
  });
});
server.listen(0, "127.0.0.1", () => console.log(`port ${server.address().port}`));
