// The upstream for benchmarks: a minimal OpenAI Chat Completions server in the real API's shapes (JSON, and SSE
// chunks for `stream: true`), always answering "ok", in its own process so its work does not share the measured
// process's event loop. Prints its base URL (ending in /v1), then serves until killed. The benchmark's own, so
// the tests' fakes can change without moving its numbers.
//
// Streams: the first chunk (the role) is sent at once, the rest (content "ok", the finish, the usage-only chunk
// when `stream_options.include_usage` is true, `[DONE]`) BENCH_STREAM_PAUSE_MS (20) later, so a relay that holds
// the stream back shows. Each chunk's id is `chatcmpl-<process.hrtime.bigint() when it was sent>`: the monotonic
// clock every process on the machine shares, so a client can tell how long the relay took.
//
// Failures on request, for the load run (the marker is the body's `user`, which proxies pass through unchanged):
// "fail-500" and "fail-429" answer that status with the API's error body; "fail-cut" sends a stream's first
// chunk, then destroys the socket. GET /stats counts what was asked, so a run can check nothing was retried.
//
// Every answer bills the same usage: BENCH_USAGE_INPUT (12) prompt tokens and BENCH_USAGE_OUTPUT (1) completion
// tokens, so a run that knows the price knows each call's cost. With BENCH_RECORD_ARRIVALS=1 it notes when each
// call arrived (epoch ms) by the body's `user` (up to 100,000 of them), read at GET /arrivals: a server calls the
// upstream right after admitting a call, so that is when the call was admitted, on the servers' own clock.
import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

const ROUTE = "/v1/chat/completions";
const tokens = (name: string, fallback: number) => {
  const value = Number(process.env[name]);
  return Number.isInteger(value) && value >= 0 ? value : fallback;
};
const USAGE = { input: tokens("BENCH_USAGE_INPUT", 12), output: tokens("BENCH_USAGE_OUTPUT", 1) };
// The dated model the real API names in its answers, whichever alias was asked for.
const SERVED_MODEL = "gpt-4o-mini-2024-07-18";
const PAUSE_MS = Number(process.env.BENCH_STREAM_PAUSE_MS ?? 20);

export type UpstreamStats = { json: number; streams: number; fail500: number; fail429: number; cut: number };
const stats: UpstreamStats = { json: 0, streams: 0, fail500: 0, fail429: 0, cut: 0 };
const RECORD_ARRIVALS = process.env.BENCH_RECORD_ARRIVALS === "1";
const MAX_ARRIVALS = 100_000;
const arrivals = new Map<string, number>();

const server = createServer((req, res) => {
  answer(req, res).catch(() => res.destroy());
});
server.listen(0, "127.0.0.1", () => {
  process.stdout.write(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1\n`);
});

async function answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const arrived = Date.now();
  const body = await readJson(req);
  if (req.method === "GET" && req.url === "/stats") return sendJson(res, 200, stats);
  if (req.method === "GET" && req.url === "/arrivals")
    return sendJson(res, 200, Object.fromEntries(arrivals));
  if (RECORD_ARRIVALS && typeof body?.user === "string" && arrivals.size < MAX_ARRIVALS)
    arrivals.set(body.user, arrived);
  if (req.method !== "POST" || req.url?.split("?")[0] !== ROUTE)
    return sendJson(res, 404, errorBody(`Unknown request URL: ${req.method} ${req.url}`));
  if (!body) return sendJson(res, 400, errorBody("We could not parse the JSON body of your request."));
  const stream = body.stream === true;
  if (stream) stats.streams++;
  else stats.json++;
  if (body.user === "fail-500") {
    stats.fail500++;
    return sendJson(res, 500, serverError());
  }
  if (body.user === "fail-429") {
    stats.fail429++;
    return sendJson(res, 429, rateLimited());
  }
  if (!stream) {
    if (body.user === "fail-cut") {
      stats.cut++;
      return void res.destroy();
    }
    return sendJson(res, 200, completion());
  }
  const options = body.stream_options as { include_usage?: unknown } | undefined;
  sendStream(res, options?.include_usage === true, body.user === "fail-cut");
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
    usage: usage(),
    service_tier: "default",
    system_fingerprint: `fp_${randomId(10)}`,
  };
}

function usage() {
  return {
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
  };
}

/** The API's chunks, `"usage": null` in each when usage was asked for, as it writes them. */
function sendStream(res: ServerResponse, includeUsage: boolean, cut: boolean): void {
  const created = Math.floor(Date.now() / 1000);
  const fingerprint = `fp_${randomId(10)}`;
  const chunk = (id: string, choices: unknown[], extra: Record<string, unknown> = {}) =>
    `data: ${JSON.stringify({
      id,
      object: "chat.completion.chunk",
      created,
      model: SERVED_MODEL,
      service_tier: "default",
      system_fingerprint: fingerprint,
      choices,
      ...(includeUsage ? { usage: null } : {}),
      ...extra,
    })}\n\n`;
  const delta = (d: Record<string, unknown>, finish: string | null = null) => ({
    index: 0,
    delta: d,
    logprobs: null,
    finish_reason: finish,
  });
  res.writeHead(200, {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache",
    "x-request-id": `req_${randomId(32)}`,
    "openai-processing-ms": "42",
  });
  res.write(
    chunk(`chatcmpl-${process.hrtime.bigint()}`, [delta({ role: "assistant", content: "", refusal: null })]),
  );
  if (cut) stats.cut++;
  setTimeout(() => {
    if (cut) return void res.destroy();
    const id = `chatcmpl-${process.hrtime.bigint()}`;
    res.end(
      chunk(id, [delta({ content: "ok" })]) +
        chunk(id, [delta({}, "stop")]) +
        (includeUsage ? chunk(id, [], { usage: usage() }) : "") +
        "data: [DONE]\n\n",
    );
  }, PAUSE_MS);
}

const errorBody = (message: string) => ({
  error: { message, type: "invalid_request_error", param: null, code: null },
});
const serverError = () => ({
  error: {
    message: "The server had an error while processing your request. Sorry about that!",
    type: "server_error",
    param: null,
    code: null,
  },
});
const rateLimited = () => ({
  error: {
    message:
      "Rate limit reached for gpt-4o-mini on requests per min (RPM): Limit 500, Used 500, Requested 1.",
    type: "requests",
    param: null,
    code: "rate_limit_exceeded",
  },
});

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
