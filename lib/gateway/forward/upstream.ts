import { Readable } from "node:stream";
import type { NodeReply } from "../adapters/node-fetch";
import { GatewayError } from "../errors";
import type { Json } from "../translate/types";
import type { GatewayErrorClass, ProviderType } from "../types";
import { type AnswerSummary, PROVIDER_FAMILY, StreamSummary, type WireFormat } from "./formats";
import { isMediaFormat } from "./media";
import type { Plan, WireRequest } from "./plan";
import { type ParsedEvent, SseReader } from "./sse";

/** What a candidate started answering: a whole JSON body, or a stream read up to its first event. */
export type UpstreamAnswer =
  | { kind: "json"; text: string; summary: AnswerSummary }
  | { kind: "stream"; session: StreamSession };

/**
 * The Messages API version a translated call (or a caller that names none) is sent with: the one the installed
 * @anthropic-ai/sdk speaks, which the drawer's adapter uses and the translation table is written against.
 */
export const ANTHROPIC_VERSION = "2026-10-21";

/**
 * The provider's headers: its key (ours, never the caller's) or its sign-in token (`bearer`), and Anthropic's
 * version and beta flags. Azure OpenAI takes its key as `api-key`.
 */
export function upstreamHeaders(
  provider: { type: ProviderType; apiKey?: string },
  plan: Plan,
  wire: WireRequest,
  bearer?: string,
  /** The body's own type when it is not JSON (a multipart upload's, with its boundary). */
  contentType = "application/json",
): Record<string, string> {
  const headers: Record<string, string> = {
    "content-type": contentType,
    // Images and audio answer in JSON, text or audio bytes, as the request's response_format says.
    accept: wire.stream ? "text/event-stream" : isMediaFormat(plan.upstream) ? "*/*" : "application/json",
  };
  if (PROVIDER_FAMILY[provider.type] === "anthropic") {
    if (provider.apiKey) headers["x-api-key"] = provider.apiKey;
    headers["anthropic-version"] = wire.headers?.anthropicVersion || ANTHROPIC_VERSION;
    if (plan.anthropicBeta) headers["anthropic-beta"] = plan.anthropicBeta;
  } else if (bearer) {
    headers.authorization = `Bearer ${bearer}`;
  } else if (provider.type === "azure-openai") {
    if (provider.apiKey) headers["api-key"] = provider.apiKey;
  } else if (provider.apiKey) {
    headers.authorization = `Bearer ${provider.apiKey}`;
  }
  return headers;
}

/** A provider's error answer as the classifier reads it: its status, headers and body (the SDKs' shape). */
export async function upstreamError(reply: NodeReply): Promise<Error> {
  const text = await wholeText(reply).catch(() => "");
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = { message: text.slice(0, 500) || reply.statusText };
  }
  const message =
    ((body as { error?: { message?: unknown } }).error?.message as string | undefined) ??
    ((body as { message?: unknown }).message as string | undefined) ??
    `HTTP ${reply.status}`;
  return Object.assign(new Error(String(message)), {
    status: reply.status,
    headers: reply.headers,
    error: body,
  });
}

/** A reply's body as text (an error answered as an event stream is read to its end, up to 64 KiB). */
async function wholeText(reply: NodeReply): Promise<string> {
  if (reply.kind === "whole") return reply.body.toString("utf8");
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of reply.body as AsyncIterable<Buffer>) {
    chunks.push(chunk);
    size += chunk.length;
    if (size > 65_536) break;
  }
  reply.body.destroy();
  return Buffer.concat(chunks).toString("utf8");
}

/** An in-process answer (the offline adapter, a test's) in the shape node:http gives the gateway. */
export async function replyOf(res: Response): Promise<NodeReply> {
  const meta = { status: res.status, statusText: res.statusText, headers: Object.fromEntries(res.headers) };
  if (res.body && /text\/event-stream/.test(res.headers.get("content-type") ?? ""))
    return {
      ...meta,
      kind: "stream",
      body: Readable.fromWeb(res.body as import("node:stream/web").ReadableStream),
    };
  return { ...meta, kind: "whole", body: Buffer.from(await res.arrayBuffer()) };
}

/** The class of an error event inside a stream, by the type the provider gave it. */
export function streamErrorClass(type: string): GatewayErrorClass {
  if (type === "rate_limit_error" || type === "rate_limit_exceeded") return "rate_limited";
  if (type === "invalid_request_error") return "bad_request";
  if (type === "authentication_error" || type === "permission_error") return "auth";
  return "server";
}

/** Events that come ahead of the answer itself: a failure after them is still the candidate's, before any byte. */
const PREAMBLE: Partial<Record<WireFormat, Set<string>>> = {
  "anthropic-messages": new Set(["message_start", "ping"]),
  "openai-responses": new Set(["response.created", "response.in_progress"]),
};

/** One upstream stream being read: SSE frames parsed once, followed by a summary for the ledger. */
export class StreamSession {
  readonly summary: StreamSummary;
  private readonly sse = new SseReader();
  private readonly decoder = new TextDecoder();
  private readonly chunks: AsyncIterator<Buffer>;
  private readonly data = new WeakMap<ParsedEvent, Json | "[DONE]">();
  private buffered: ParsedEvent[] = [];
  private ended = false;

  constructor(
    private readonly body: Readable,
    private readonly format: WireFormat,
  ) {
    this.summary = new StreamSummary(format);
    this.chunks = body[Symbol.asyncIterator]();
  }

  /** An event's data as JSON (or `[DONE]`); text that is not JSON is passed on and not read. */
  parsed(event: ParsedEvent): Json | "[DONE]" {
    return this.data.get(event) ?? {};
  }

  /** Reads until the first event of the answer; throws (for the router) when the provider fails before it. */
  async readPreamble(): Promise<void> {
    const preamble = PREAMBLE[this.format];
    for (;;) {
      const events = await this.next();
      if (events === undefined)
        throw new GatewayError("connection", "the provider's stream ended without an answer");
      this.buffered.push(...events);
      if (this.summary.error) {
        throw new GatewayError(streamErrorClass(this.summary.error.type), this.summary.error.message);
      }
      const name = (e: ParsedEvent) => e.event ?? String((this.parsed(e) as Json).type ?? "");
      if (this.buffered.some((e) => !preamble?.has(name(e)))) return;
    }
  }

  takeBuffered(): ParsedEvent[] {
    const events = this.buffered;
    this.buffered = [];
    return events;
  }

  /** The next events (at least one), or undefined when the stream has ended. */
  async next(): Promise<ParsedEvent[] | undefined> {
    while (!this.ended) {
      const { done, value } = await this.chunks.next();
      const events = done
        ? [...this.sse.push(this.decoder.decode()), ...this.sse.end()]
        : this.sse.push(this.decoder.decode(value, { stream: true }));
      if (done) this.ended = true;
      for (const e of events) this.read(e);
      if (events.length) return events;
    }
    return undefined;
  }

  async cancel(): Promise<void> {
    this.body.destroy();
  }

  private read(event: ParsedEvent): void {
    let data: Json | "[DONE]";
    if (event.data === "[DONE]") data = "[DONE]";
    else {
      try {
        const value = JSON.parse(event.data) as unknown;
        data = value && typeof value === "object" ? (value as Json) : {};
      } catch {
        data = {};
      }
    }
    this.data.set(event, data);
    this.summary.add(event.event, data);
  }
}
