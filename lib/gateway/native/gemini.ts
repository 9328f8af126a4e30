/**
 * Google's generateContent as a native provider, for both of Google's doors to Gemini: the Gemini API (an API key
 * in `x-goog-api-key`) and Vertex AI (a service account's OAuth token). Only `target()` differs between them.
 */
import { Readable } from "node:stream";
import { frame, SseReader } from "../forward/sse";
import { openAIChatToGemini } from "../translate/gemini";
import type { Json, SseEvent } from "../translate/types";
import {
  completionId,
  filteredReason,
  finishReasonOf,
  geminiAnswerToOpenAIChat,
  partsOf,
  streamErrorType,
  usageOf,
  verdictsOf,
} from "./gemini-answer";
import type { NativeProvider, NativeRequest, NativeTarget } from "./types";

export const GEMINI_DEFAULT_BASE_URL = "https://generativelanguage.googleapis.com";

/** Where and how one Google provider is reached. */
export type GoogleEndpoint =
  | {
      type: "gemini";
      apiKey: string;
      /** The API's root (default https://generativelanguage.googleapis.com); `/v1beta/models/…` is appended. */
      baseUrl?: string;
    }
  | {
      type: "vertex";
      project: string;
      location: string;
      /** The service account's access tokens (GoogleTokenSource). */
      tokens: { token(signal?: AbortSignal): Promise<string> };
      /** The API's root (default https://{location}-aiplatform.googleapis.com); `/v1/projects/…` is appended. */
      baseUrl?: string;
    };

/** Vertex AI's host for a location: the global endpoint has no region prefix. */
export const vertexBaseUrl = (location: string) =>
  location === "global"
    ? "https://aiplatform.googleapis.com"
    : `https://${location}-aiplatform.googleapis.com`;

export class GeminiProvider implements NativeProvider {
  constructor(private readonly endpoint: GoogleEndpoint) {}

  translate(body: Json, options: Parameters<NativeProvider["translate"]>[1]): NativeRequest {
    const { body: native, dropped } = openAIChatToGemini(body, options);
    return { body: native, dropped };
  }

  async target(
    model: string,
    stream: boolean,
    _bodyText: string,
    signal: AbortSignal,
  ): Promise<NativeTarget> {
    const method = stream ? "streamGenerateContent?alt=sse" : "generateContent";
    const headers: Record<string, string> = {
      "content-type": "application/json",
      accept: stream ? "text/event-stream" : "application/json",
    };
    const e = this.endpoint;
    // A tuned model is named by its own path (tunedModels/…); a base model by its id.
    const name = model.includes("/") ? model : `models/${encodeURIComponent(model)}`;
    if (e.type === "gemini") {
      headers["x-goog-api-key"] = e.apiKey;
      const root = (e.baseUrl ?? GEMINI_DEFAULT_BASE_URL).replace(/\/+$/, "");
      return { url: `${root}/v1beta/${name}:${method}`, headers };
    }
    headers.authorization = `Bearer ${await e.tokens.token(signal)}`;
    const root = (e.baseUrl ?? vertexBaseUrl(e.location)).replace(/\/+$/, "");
    const path = `projects/${encodeURIComponent(e.project)}/locations/${encodeURIComponent(e.location)}/publishers/google/${name}`;
    return { url: `${root}/v1/${path}:${method}`, headers };
  }

  answer(body: Json, model: string): Json {
    return geminiAnswerToOpenAIChat(body, model);
  }

  stream(body: Readable, model: string): Readable {
    return Readable.from(translateStream(body, model), { objectMode: false });
  }
}

/** Google's SSE frames (each a partial GenerateContentResponse) as OpenAI chat chunks, then usage and [DONE]. */
async function* translateStream(body: AsyncIterable<Buffer | string>, model: string): AsyncGenerator<string> {
  const state = new GeminiStreamState(model);
  const reader = new SseReader();
  const decoder = new TextDecoder();
  for await (const chunk of body) {
    const text = typeof chunk === "string" ? chunk : decoder.decode(chunk, { stream: true });
    for (const event of reader.push(text)) yield* state.push(event).map(frame);
  }
  for (const event of reader.push(decoder.decode())) yield* state.push(event).map(frame);
  for (const event of reader.end()) yield* state.push(event).map(frame);
  yield* state.end().map(frame);
}

/** One stream's translation: what was started, which calls each candidate made, the last usage. */
export class GeminiStreamState {
  private id = completionId(undefined);
  private readonly created = Math.floor(Date.now() / 1000);
  private started = new Set<number>();
  private calls = new Map<number, number>(); // candidate index -> tool calls so far
  private usage: Json | undefined;
  private finished = false;
  private failed = false;
  private callCount = 0;

  constructor(private model: string) {}

  private chunk(choices: Json[], extra: Json = {}): SseEvent {
    const data = {
      id: this.id,
      object: "chat.completion.chunk",
      created: this.created,
      model: this.model,
      choices,
      ...extra,
    };
    return { data: JSON.stringify(data) };
  }

  push(event: SseEvent): SseEvent[] {
    if (this.failed) return [];
    let frameBody: Json;
    try {
      frameBody = JSON.parse(event.data) as Json;
    } catch {
      return [];
    }
    const error = frameBody.error as Json | undefined;
    if (error && typeof error === "object") {
      this.failed = true;
      const type = streamErrorType(error.status, error.code);
      return [
        { data: JSON.stringify({ error: { type, message: String(error.message ?? "provider error") } }) },
      ];
    }
    if (this.started.size === 0 && typeof frameBody.responseId === "string")
      this.id = completionId(frameBody.responseId);
    if (typeof frameBody.modelVersion === "string" && frameBody.modelVersion)
      this.model = frameBody.modelVersion;
    const usage = usageOf(frameBody.usageMetadata);
    if (usage) this.usage = usage;
    const out: SseEvent[] = [];
    const feedback = frameBody.promptFeedback as Json | undefined;
    const candidates = Array.isArray(frameBody.candidates) ? (frameBody.candidates as Json[]) : [];
    if (feedback?.blockReason && !candidates.length) {
      const verdicts = verdictsOf(feedback.safetyRatings, feedback.blockReason);
      out.push(
        this.chunk(
          [
            {
              index: 0,
              delta: { role: "assistant", content: "" },
              logprobs: null,
              finish_reason: "content_filter",
            },
          ],
          {
            prompt_filter_results: [{ prompt_index: 0, content_filter_results: verdicts ?? {} }],
          },
        ),
      );
      this.finished = true;
      return out;
    }
    for (const [i, candidate] of candidates.entries()) {
      const index = typeof candidate.index === "number" ? candidate.index : i;
      if (!this.started.has(index)) {
        this.started.add(index);
        out.push(
          this.chunk([
            { index, delta: { role: "assistant", content: "" }, logprobs: null, finish_reason: null },
          ]),
        );
      }
      const { text, calls } = partsOf(candidate, this.callCount);
      this.callCount += calls.length;
      if (text)
        out.push(this.chunk([{ index, delta: { content: text }, logprobs: null, finish_reason: null }]));
      if (calls.length) {
        const before = this.calls.get(index) ?? 0;
        const deltas = calls.map((c, k) => ({ index: before + k, ...c }));
        this.calls.set(index, before + calls.length);
        out.push(this.chunk([{ index, delta: { tool_calls: deltas }, logprobs: null, finish_reason: null }]));
      }
      const finish = finishReasonOf(candidate.finishReason, (this.calls.get(index) ?? 0) > 0);
      if (finish) {
        this.finished = true;
        const choice: Json = { index, delta: {}, logprobs: null, finish_reason: finish };
        const verdicts = verdictsOf(candidate.safetyRatings, filteredReason(candidate.finishReason));
        if (verdicts) choice.content_filter_results = verdicts;
        out.push(this.chunk([choice], verdicts ? { prompt_filter_results: [] } : {}));
      }
    }
    return out;
  }

  /** The usage-only chunk and [DONE], once an answer finished; a stream cut before that ends without them. */
  end(): SseEvent[] {
    if (this.failed || !this.finished) return [];
    const out: SseEvent[] = [];
    if (this.usage) out.push(this.chunk([], { usage: this.usage }));
    out.push({ data: "[DONE]" });
    return out;
  }
}
