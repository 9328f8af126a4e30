// The upstream for benchmarks: a minimal OpenAI Chat Completions server (non-streamed JSON in the real API's
// shape, always "ok"), in its own process so its work does not share the measured process's event loop.
// Prints its base URL (ending in /v1), then serves until killed. The benchmark's own, so the tests' fakes can
// change without moving its numbers.
import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

const ROUTE = "/v1/chat/completions";
const USAGE = { input: 12, output: 1 };
// The dated model the real API names in its answers, whichever alias was asked for.
const SERVED_MODEL = "gpt-4o-mini-2024-07-18";

const server = createServer((req, res) => {
  answer(req, res).catch(() => res.destroy());
});
server.listen(0, "127.0.0.1", () => {
  process.stdout.write(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1\n`);
});

async function answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const body = await readJson(req);
  if (req.method !== "POST" || req.url?.split("?")[0] !== ROUTE)
    return sendJson(res, 404, errorBody(`Unknown request URL: ${req.method} ${req.url}`));
  if (!body || body.stream === true)
    return sendJson(res, 400, errorBody("the benchmark upstream answers non-streamed JSON requests only"));
  sendJson(res, 200, completion());
}

function completion() {
  return {
    id: `chatcmpl-${randomId(29)}`,
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model: SERVED_MODEL,
    choices: [
      {
        index: 0,
        message: { role: "assistant", content: "ok", refusal: null, annotations: [] },
        logprobs: null,
        finish_reason: "stop",
      },
    ],
    usage: {
      prompt_tokens: USAGE.input,
      completion_tokens: USAGE.output,
      total_tokens: USAGE.input + USAGE.output,
      prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
      completion_tokens_details: {
        reasoning_tokens: 0,
        audio_tokens: 0,
        accepted_prediction_tokens: 0,
        rejected_prediction_tokens: 0,
      },
    },
    service_tier: "default",
    system_fingerprint: `fp_${randomId(10)}`,
  };
}

function errorBody(message: string) {
  return { error: { message, type: "invalid_request_error", param: null, code: null } };
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
    "x-request-id": `req_${randomId(32)}`,
    "openai-processing-ms": "42",
  });
  res.end(text);
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown> | null> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  try {
    const value: unknown = JSON.parse(Buffer.concat(parts).toString("utf8"));
    return value !== null && typeof value === "object" && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

function randomId(length: number): string {
  return randomBytes(length).toString("base64url").slice(0, length);
}
