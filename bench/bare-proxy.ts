// The floor of any proxy built on the gateway: node:http, the same request adapter as the lean server
// (server/serve.ts) and Gateway.chat, with no key check, no pipeline, no ledger. Prints its port; serves until
// killed on the port given (or any). Used by bench/gateway-overhead.ts as the baseline the lean server's own work is measured against.
import { createServer } from "node:http";
import { serveFetchHandler } from "@/server/serve";
import { parseGatewayConfig } from "../lib/gateway/config";
import { Gateway } from "../lib/gateway/gateway";

const [upstream, port = "0"] = process.argv.slice(2);
if (!upstream) throw new Error("usage: bare-proxy.ts <upstream base URL> [port]");
const gateway = new Gateway(
  parseGatewayConfig(
    {
      providers: { up: { type: "openai", baseUrl: upstream, apiKeyEnv: "BENCH_UPSTREAM_KEY" } },
      models: { bench: { candidates: [{ provider: "up", model: "gpt-4o-mini" }] } },
      retry: { maxRetries: 0 },
    },
    "bare-proxy",
    { BENCH_UPSTREAM_KEY: "bench" },
  ),
);
const server = createServer(
  serveFetchHandler(async (req) => {
    if (req.method !== "POST") return new Response("ready");
    const body = (await req.json()) as { messages: { role: "user"; content: string }[] };
    const res = await gateway.chat({ model: "bench", messages: body.messages });
    return Response.json({
      id: "chatcmpl-bare",
      object: "chat.completion",
      created: Math.floor(Date.now() / 1000),
      model: res.stamp.servedModel,
      choices: [
        { index: 0, message: { role: "assistant", content: res.message.content }, finish_reason: "stop" },
      ],
      usage: {
        prompt_tokens: res.stamp.usage.inputTokens,
        completion_tokens: res.stamp.usage.outputTokens,
        total_tokens: 0,
      },
    });
  }),
);
server.listen(Number(port), "127.0.0.1", () =>
  process.stdout.write(`${(server.address() as { port: number }).port}\n`),
);
