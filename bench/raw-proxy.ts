// The floor under any gateway: a raw node:http proxy that does only what every one of them must. It reads the
// body, parses it, names the upstream's model in it, serialises it and sends it over a keep-alive agent, then
// pipes the upstream's status, headers and body back as they come (JSON, or an SSE stream chunk by chunk). No key
// check, no ledger. Used by bench/gateway-overhead.ts as the column the lean server is compared with.
//   tsx bench/raw-proxy.ts <upstream base URL, e.g. http://127.0.0.1:4000/v1> <upstream model> [port]
// Prints its port, then serves until killed; requests under /v1/… go to the same path under the upstream's base.
import { Agent, createServer, request } from "node:http";

const [base, model, port = "0"] = process.argv.slice(2);
if (!base || !model) throw new Error("usage: raw-proxy.ts <upstream base URL> <upstream model> [port]");
const upstream = new URL(base);
const agent = new Agent({ keepAlive: true, maxSockets: 256 });

const server = createServer((req, res) => {
  if (req.method !== "POST") return void res.end("ready");
  const parts: Buffer[] = [];
  req.on("data", (part: Buffer) => parts.push(part));
  req.on("end", () => {
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(Buffer.concat(parts).toString("utf8"));
    } catch {
      res.writeHead(400, { "content-type": "application/json" });
      return void res.end('{"error":{"message":"invalid JSON body","type":"invalid_request_error"}}');
    }
    body.model = model;
    const text = JSON.stringify(body);
    const out = request(
      {
        host: upstream.hostname,
        port: upstream.port,
        path: upstream.pathname.replace(/\/$/, "") + (req.url ?? "/").replace(/^\/v1/, ""),
        method: "POST",
        agent,
        headers: {
          "content-type": "application/json",
          "content-length": Buffer.byteLength(text),
          authorization: req.headers.authorization ?? "",
        },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
        // An upstream that cuts its answer short: the caller's connection is cut too, not left hanging.
        answer.on("close", () => {
          if (!answer.complete) res.destroy();
        });
      },
    );
    out.on("error", () => (res.headersSent ? res.destroy() : res.writeHead(502).end()));
    out.end(text);
  });
});
server.listen(Number(port), "127.0.0.1", () =>
  process.stdout.write(`${(server.address() as { port: number }).port}\n`),
);
