// A fake AWS Bedrock runtime for the Converse and ConverseStream APIs, checking what the real service checks: a
// SigV4 signature (re-computed from the request as received, with the secret of the access key it names, and
// compared), or a Bedrock API key as a bearer; the request's date (15 minutes' skew); that the model exists; and
// Converse's own validation (no unknown top-level keys, alternating roles starting with user, tools declared when
// the conversation holds tool blocks). Streams are AWS's binary event stream (application/vnd.amazon.eventstream).
//   POST /model/{modelId}/converse          -> JSON
//   POST /model/{modelId}/converse-stream   -> event stream: messageStart, contentBlock*, messageStop, metadata
import { createHash, createHmac, type Hash, type Hmac } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { EventStreamCodec } from "@smithy/core/event-streams";
import { SignatureV4 } from "@smithy/signature-v4";
import type { Checksum, SourceData } from "@smithy/types";
import type { FakeReply, FakeUsage, RecordedRequest } from "./http";

export type BedrockReply =
  | FakeReply
  /** An exception inside an opened stream (after messageStart), as ConverseStream sends them. */
  | { kind: "stream_exception"; exception: string; message: string; afterText?: string }
  /** Stopped by a guardrail or the content filter. */
  | { kind: "filtered"; stopReason: "guardrail_intervened" | "content_filtered"; text?: string };

export type FakeBedrock = {
  url: string;
  requests: RecordedRequest[];
  /** Signatures checked and refused so far. */
  signatures: { verified: number; refused: number };
  enqueue(...replies: BedrockReply[]): void;
  setDefault(reply: BedrockReply): void;
  reset(): void;
  close(): Promise<void>;
};

export type FakeBedrockOptions = {
  region: string;
  /** Access key id -> secret (and the session token that must come with it, if any). */
  keys?: Record<string, { secret: string; sessionToken?: string }>;
  /** Bedrock API keys taken as bearers. */
  apiKeys?: string[];
  /** Model ids (and inference profiles) the account can invoke. */
  models: string[];
};

class Sha256 implements Checksum {
  private hash: Hash | Hmac;
  constructor(private readonly secret?: SourceData) {
    this.hash = this.fresh();
  }
  private fresh() {
    return this.secret === undefined
      ? createHash("sha256")
      : createHmac(
          "sha256",
          typeof this.secret === "string" ? this.secret : Buffer.from(this.secret as Uint8Array),
        );
  }
  update(data: Uint8Array | string) {
    this.hash.update(data);
  }
  async digest() {
    return this.hash.digest();
  }
  reset() {
    this.hash = this.fresh();
  }
}

const codec = new EventStreamCodec(
  (bytes) => Buffer.from(bytes).toString("utf8"),
  (text) => Buffer.from(text, "utf8"),
);

const ERROR_TYPES: Record<number, string> = {
  400: "ValidationException",
  403: "AccessDeniedException",
  404: "ResourceNotFoundException",
  408: "ModelTimeoutException",
  424: "ModelErrorException",
  429: "ThrottlingException",
  500: "InternalServerException",
  503: "ServiceUnavailableException",
};

const ROUTE = /^\/model\/([^/]+)\/(converse|converse-stream)$/;
const TOP_LEVEL = new Set([
  "messages",
  "system",
  "inferenceConfig",
  "toolConfig",
  "guardrailConfig",
  "additionalModelRequestFields",
  "promptVariables",
  "additionalModelResponseFieldPaths",
  "requestMetadata",
  "performanceConfig",
  "serviceTier",
]);

export async function startFakeBedrock(options: FakeBedrockOptions): Promise<FakeBedrock> {
  const requests: RecordedRequest[] = [];
  const queue: BedrockReply[] = [];
  const fallback: { reply: BedrockReply } = { reply: { kind: "text", text: "ok" } };
  const signatures = { verified: 0, refused: 0 };
  const sockets = new Set<Socket>();

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      console.error("fake bedrock failed to answer", error);
      res.destroy();
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const rawBody = Buffer.concat(chunks).toString("utf8");
    let body: Record<string, unknown> = {};
    try {
      const parsed = JSON.parse(rawBody) as unknown;
      if (parsed && typeof parsed === "object" && !Array.isArray(parsed))
        body = parsed as Record<string, unknown>;
    } catch {
      // Not JSON: Converse's validation refuses it below.
    }
    const path = req.url ?? "/";
    const recorded: RecordedRequest = {
      method: req.method ?? "GET",
      path,
      headers: { ...req.headers },
      body,
      rawBody,
      rawBytes: Buffer.concat(chunks),
    };
    requests.push(recorded);
    const denied = await authenticate(req, rawBody);
    if (denied) return sendError(res, denied.status, denied.type, denied.message);
    const route = ROUTE.exec(path.split("?")[0]!);
    if (req.method !== "POST" || !route) return sendError(res, 404, "UnknownOperationException", "Not found");
    const model = decodeURIComponent(route[1]!);
    if (!options.models.includes(model))
      return sendError(res, 400, "ValidationException", "The provided model identifier is invalid.");
    const problem = validate(body, rawBody);
    if (problem) return sendError(res, 400, "ValidationException", problem);
    const reply = queue.shift() ?? fallback.reply;
    const stream = route[2] === "converse-stream";
    if (reply.kind === "hang") return;
    if (reply.kind === "drop") return void req.socket.destroy();
    if (reply.kind === "error")
      return sendError(
        res,
        reply.status,
        reply.type ?? ERROR_TYPES[reply.status] ?? "InternalServerException",
        reply.message ?? "failed",
        reply.headers,
      );
    if (reply.kind === "raw") {
      res.writeHead(reply.status ?? 200, reply.headers ?? { "content-type": "application/json" });
      return void res.end(reply.json !== undefined ? JSON.stringify(reply.json) : (reply.body ?? ""));
    }
    return stream ? sendStream(res, reply, model) : sendJson(res, reply);
  }

  /** SigV4 as AWS checks it, or a Bedrock API key; undefined when the caller is who it says. */
  async function authenticate(req: IncomingMessage, rawBody: string) {
    const authorization = String(req.headers.authorization ?? "");
    if (authorization.startsWith("Bearer ")) {
      if (options.apiKeys?.includes(authorization.slice(7))) return undefined;
      return {
        status: 403,
        type: "AccessDeniedException",
        message: "Invalid API Key format: Must start with pre-defined prefix",
      };
    }
    const m =
      /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]{64})$/.exec(
        authorization,
      );
    const refuse = (message: string) => {
      signatures.refused++;
      return { status: 403, type: "UnrecognizedClientException", message };
    };
    if (!m) return refuse("Missing Authentication Token");
    const [, keyId, day, region, service, signedHeaders, signature] = m;
    const key = options.keys?.[keyId!];
    if (!key) return refuse("The security token included in the request is invalid.");
    if (region !== options.region || service !== "bedrock")
      return refuse(`Credential should be scoped to a valid region and service 'bedrock'.`);
    const amzDate = String(req.headers["x-amz-date"] ?? "");
    const when = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(amzDate);
    if (!when || amzDate.slice(0, 8) !== day)
      return refuse(
        "Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP",
      );
    const signedAt = new Date(Date.UTC(+when[1]!, +when[2]! - 1, +when[3]!, +when[4]!, +when[5]!, +when[6]!));
    if (Math.abs(Date.now() - signedAt.getTime()) > 15 * 60_000) return refuse("Signature expired");
    if (key.sessionToken && req.headers["x-amz-security-token"] !== key.sessionToken)
      return refuse("The security token included in the request is invalid.");
    // The payload hash a request states must be its body's (AWS checks it; the signature covers the header).
    const stated = req.headers["x-amz-content-sha256"];
    if (
      stated &&
      stated !== "UNSIGNED-PAYLOAD" &&
      stated !== createHash("sha256").update(rawBody).digest("hex")
    )
      return refuse("The provided 'x-amz-content-sha256' header does not match what was computed.");
    const names = signedHeaders!.split(";");
    if (!names.includes("host")) return refuse("'Host' must be a signed header");
    const headers: Record<string, string> = {};
    for (const name of names) headers[name] = String(req.headers[name] ?? "");
    const url = new URL(req.url ?? "/", "http://placeholder");
    const query: Record<string, string> = {};
    url.searchParams.forEach((value, name) => {
      query[name] = value;
    });
    const signer = new SignatureV4({
      service: "bedrock",
      region: options.region,
      sha256: Sha256,
      credentials: { accessKeyId: keyId!, secretAccessKey: key.secret, sessionToken: key.sessionToken },
    });
    const expected = await signer.sign(
      {
        method: req.method ?? "POST",
        protocol: "http:",
        hostname: headers.host!,
        path: url.pathname,
        query,
        headers,
        body: rawBody,
      },
      { signingDate: signedAt },
    );
    const computed = /Signature=([0-9a-f]{64})/.exec(String(expected.headers.authorization))?.[1];
    if (computed !== signature)
      return refuse(
        "The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method.",
      );
    signatures.verified++;
    return undefined;
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    signatures,
    enqueue: (...replies) => void queue.push(...replies),
    setDefault: (reply) => {
      fallback.reply = reply;
    },
    reset: () => {
      queue.length = 0;
      requests.length = 0;
      fallback.reply = { kind: "text", text: "ok" };
      signatures.verified = signatures.refused = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Converse's own request checks (a subset of the real service's, enough to catch a wrong translation). */
function validate(body: Record<string, unknown>, raw: string): string | null {
  if (!raw.trim().startsWith("{"))
    return "Malformed input request, please reformat your input and try again.";
  for (const key of Object.keys(body))
    if (!TOP_LEVEL.has(key)) return `Malformed input request: extraneous key [${key}] is not permitted`;
  const messages = body.messages;
  if (!Array.isArray(messages) || !messages.length) return "A conversation must start with a user message.";
  let expected = "user";
  let usesTools = false;
  for (const m of messages as Array<Record<string, unknown>>) {
    if (m.role !== expected) return "A conversation must alternate between user and assistant roles.";
    expected = expected === "user" ? "assistant" : "user";
    if (!Array.isArray(m.content) || !m.content.length)
      return "The content field in the Message object is empty.";
    for (const block of m.content as Array<Record<string, unknown>>) {
      const kinds = Object.keys(block);
      if (kinds.length !== 1) return "A content block must hold exactly one member.";
      if (kinds[0] === "toolUse" || kinds[0] === "toolResult") usesTools = true;
    }
  }
  if (usesTools && !(body.toolConfig as { tools?: unknown[] } | undefined)?.tools?.length)
    return "The toolConfig field must be defined when using toolUse and toolResult content blocks.";
  return null;
}

function usageOf(usage: FakeUsage | undefined, defaultOutput: number) {
  const input = usage?.input ?? 12;
  const cached = usage?.cached ?? 0;
  const write = usage?.cacheWrite ?? 0;
  const output = usage?.output ?? defaultOutput;
  const out: Record<string, number> = {
    inputTokens: input,
    outputTokens: output,
    totalTokens: input + cached + write + output,
  };
  if (cached) out.cacheReadInputTokens = cached;
  if (write) out.cacheWriteInputTokens = write;
  return out;
}

function answerOf(
  reply: Exclude<BedrockReply, { kind: "hang" | "drop" | "error" | "raw" | "stream_exception" }>,
) {
  if (reply.kind === "tool_calls") {
    const content: unknown[] = [];
    if (reply.text) content.push({ text: reply.text });
    for (const [i, c] of reply.calls.entries())
      content.push({ toolUse: { toolUseId: c.id ?? `tooluse_${i}`, name: c.name, input: c.args } });
    return { content, stopReason: "tool_use", usage: usageOf(reply.usage, 20) };
  }
  if (reply.kind === "filtered")
    return {
      content: reply.text ? [{ text: reply.text }] : [],
      stopReason: reply.stopReason,
      usage: usageOf(undefined, 0),
    };
  const text = "text" in reply ? reply.text : "";
  return {
    content: text ? [{ text }] : [],
    stopReason: "end_turn",
    usage: usageOf(reply.kind === "text" ? reply.usage : undefined, Math.max(1, text.split(/\s+/).length)),
  };
}

function sendJson(res: ServerResponse, reply: BedrockReply) {
  if (reply.kind === "cut" || reply.kind === "stream_exception") return void res.destroy();
  const answer = answerOf(reply as Parameters<typeof answerOf>[0]);
  const body = JSON.stringify({
    output: { message: { role: "assistant", content: answer.content } },
    stopReason: answer.stopReason,
    usage: answer.usage,
    metrics: { latencyMs: 42 },
  });
  res.writeHead(200, { "content-type": "application/json", "x-amzn-requestid": crypto.randomUUID() });
  res.end(body);
}

function eventFrame(type: string, payload: unknown, kind: "event" | "exception" = "event"): Uint8Array {
  const headers: Record<string, { type: "string"; value: string }> = {
    ":message-type": { type: "string", value: kind },
    [kind === "event" ? ":event-type" : ":exception-type"]: { type: "string", value: type },
    ":content-type": { type: "string", value: "application/json" },
  };
  return codec.encode({ headers, body: Buffer.from(JSON.stringify(payload), "utf8") });
}

async function sendStream(res: ServerResponse, reply: BedrockReply, _model: string) {
  res.writeHead(200, {
    "content-type": "application/vnd.amazon.eventstream",
    "x-amzn-requestid": crypto.randomUUID(),
  });
  const write = async (type: string, payload: unknown, kind: "event" | "exception" = "event") => {
    res.write(eventFrame(type, payload, kind));
    await new Promise((r) => setImmediate(r));
  };
  await write("messageStart", { role: "assistant" });
  if (reply.kind === "hang_after_headers") return;
  if (reply.kind === "stream_exception") {
    if (reply.afterText) {
      await write("contentBlockDelta", { contentBlockIndex: 0, delta: { text: reply.afterText } });
    }
    await write(reply.exception, { message: reply.message }, "exception");
    return void res.end();
  }
  if (reply.kind === "cut") {
    const words = reply.text.split(/(?<= )/);
    for (const word of words.slice(0, reply.afterChunks))
      await write("contentBlockDelta", { contentBlockIndex: 0, delta: { text: word } });
    if (reply.ending === "stall") return;
    return void res.destroy();
  }
  const answer = answerOf(reply as Parameters<typeof answerOf>[0]);
  for (const [index, block] of (answer.content as Array<Record<string, unknown>>).entries()) {
    if (typeof block.text === "string") {
      const pieces = reply.kind === "text" && reply.chunks ? reply.chunks : block.text.split(/(?<= )/);
      for (const piece of pieces)
        await write("contentBlockDelta", { contentBlockIndex: index, delta: { text: piece }, p: "abcd" });
    } else {
      const use = block.toolUse as { toolUseId: string; name: string; input: unknown };
      await write("contentBlockStart", {
        contentBlockIndex: index,
        start: { toolUse: { toolUseId: use.toolUseId, name: use.name } },
      });
      const input = JSON.stringify(use.input);
      const half = Math.ceil(input.length / 2);
      for (const part of [input.slice(0, half), input.slice(half)])
        await write("contentBlockDelta", { contentBlockIndex: index, delta: { toolUse: { input: part } } });
    }
    await write("contentBlockStop", { contentBlockIndex: index });
  }
  await write("messageStop", { stopReason: answer.stopReason });
  await write("metadata", { usage: answer.usage, metrics: { latencyMs: 42 } });
  res.end();
}

function sendError(
  res: ServerResponse,
  status: number,
  type: string,
  message: string,
  headers: Record<string, string> = {},
) {
  res.writeHead(status, {
    "content-type": "application/json",
    "x-amzn-errortype": `${type}:http://internal.amazon.com/coral/com.amazon.bedrock/`,
    ...headers,
  });
  res.end(JSON.stringify({ message }));
}
