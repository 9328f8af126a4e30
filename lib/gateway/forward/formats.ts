import { AZURE_DEFAULT_API_VERSION, azureEndpoint } from "../azure";
import type { Json } from "../translate/types";
import type { FinishReason, MediaUnits, ProviderType, ToolCall, Usage } from "../types";

/** The request formats /v1 takes, each named by the API it copies. */
export type WireFormat =
  | "openai-chat"
  | "openai-embeddings"
  | "openai-moderations"
  | "openai-responses"
  | "openai-image-generations"
  | "openai-image-edits"
  | "openai-transcriptions"
  | "openai-translations"
  | "openai-speech"
  | "anthropic-messages"
  | "anthropic-count-tokens";

/** The two API families a provider speaks; the offline demo model is served in-process as an OpenAI chat. */
export type Family = "openai" | "anthropic";

export const FAMILY: Record<WireFormat, Family> = {
  "openai-chat": "openai",
  "openai-embeddings": "openai",
  "openai-moderations": "openai",
  "openai-responses": "openai",
  "openai-image-generations": "openai",
  "openai-image-edits": "openai",
  "openai-transcriptions": "openai",
  "openai-translations": "openai",
  "openai-speech": "openai",
  "anthropic-messages": "anthropic",
  "anthropic-count-tokens": "anthropic",
};

export const PROVIDER_FAMILY: Record<ProviderType, Family> = {
  openai: "openai",
  "openai-compatible": "openai",
  "azure-openai": "openai",
  // Native APIs are reached through OpenAI chat (lib/gateway/native): planned as OpenAI, then translated.
  bedrock: "openai",
  gemini: "openai",
  vertex: "openai",
  offline: "openai",
  anthropic: "anthropic",
};

/** Each format's path under its provider's base URL (OpenAI's base URL ends in /v1, Anthropic's does not). */
export const UPSTREAM_PATH: Record<WireFormat, string> = {
  "openai-chat": "/chat/completions",
  "openai-embeddings": "/embeddings",
  "openai-moderations": "/moderations",
  "openai-responses": "/responses",
  "openai-image-generations": "/images/generations",
  "openai-image-edits": "/images/edits",
  "openai-transcriptions": "/audio/transcriptions",
  "openai-translations": "/audio/translations",
  "openai-speech": "/audio/speech",
  "anthropic-messages": "/v1/messages",
  "anthropic-count-tokens": "/v1/messages/count_tokens",
};

export const DEFAULT_BASE_URL: Record<Family, string> = {
  openai: "https://api.openai.com/v1",
  anthropic: "https://api.anthropic.com",
};

/**
 * Where a candidate is sent a request of this format: its base URL and the format's path; for Azure OpenAI the
 * v1 API (`/openai/v1/…`, the deployment as the body's model) or a dated version's deployment path.
 */
export function upstreamUrl(
  provider: { type: ProviderType; baseUrl?: string; apiVersion?: string },
  format: WireFormat,
  model: string,
): string {
  if (provider.type !== "azure-openai")
    return `${(provider.baseUrl ?? DEFAULT_BASE_URL[PROVIDER_FAMILY[provider.type]]).replace(/\/+$/, "")}${UPSTREAM_PATH[format]}`;
  const endpoint = azureEndpoint(provider);
  const version = provider.apiVersion ?? AZURE_DEFAULT_API_VERSION;
  if (version === "v1") return `${endpoint}/openai/v1${UPSTREAM_PATH[format]}`;
  const query = `?api-version=${encodeURIComponent(version)}`;
  // The Responses API is not under a deployment: the body's model names it.
  if (format === "openai-responses") return `${endpoint}/openai/responses${query}`;
  return `${endpoint}/openai/deployments/${encodeURIComponent(model)}${UPSTREAM_PATH[format]}${query}`;
}

/** The output ceiling a body sets, in its format's field (the budget reserves for it, or sets one). */
export function outputCeilingOf(format: WireFormat, body: Json): number | undefined {
  const field =
    format === "openai-chat"
      ? (body.max_completion_tokens ?? body.max_tokens)
      : format === "openai-responses"
        ? body.max_output_tokens
        : format === "anthropic-messages"
          ? body.max_tokens
          : 0;
  return typeof field === "number" ? field : undefined;
}

const num = (value: unknown) => (typeof value === "number" && Number.isFinite(value) ? value : 0);
const obj = (value: unknown): Json | undefined =>
  value && typeof value === "object" && !Array.isArray(value) ? (value as Json) : undefined;

/** OpenAI's usage (chat: prompt/completion tokens; Responses: input/output tokens), cached tokens split out. */
export function openAIUsage(raw: unknown): Usage | undefined {
  const u = obj(raw);
  if (!u) return undefined;
  const input = num(u.prompt_tokens ?? u.input_tokens);
  const details = obj(u.prompt_tokens_details);
  const cached = num(details?.cached_tokens ?? obj(u.input_tokens_details)?.cached_tokens);
  // Not OpenAI's: a native provider's answer (Bedrock) names the tokens written to its cache, billed apart.
  const written = num(details?.cache_write_tokens);
  return {
    inputTokens: Math.max(0, input - cached - written),
    cachedInputTokens: cached,
    cacheWriteTokens: written,
    outputTokens: num(u.completion_tokens ?? u.output_tokens),
    reasoningTokens: num(
      obj(u.completion_tokens_details)?.reasoning_tokens ?? obj(u.output_tokens_details)?.reasoning_tokens,
    ),
  };
}

/** Anthropic's usage: input_tokens excludes the cache reads and writes, which it counts apart. */
export function anthropicUsage(raw: unknown, previous?: Usage): Usage | undefined {
  const u = obj(raw);
  if (!u) return previous;
  const pick = (field: string, old: number) => (typeof u[field] === "number" ? num(u[field]) : old);
  return {
    inputTokens: pick("input_tokens", previous?.inputTokens ?? 0),
    cachedInputTokens: pick("cache_read_input_tokens", previous?.cachedInputTokens ?? 0),
    cacheWriteTokens: pick("cache_creation_input_tokens", previous?.cacheWriteTokens ?? 0),
    outputTokens: pick("output_tokens", previous?.outputTokens ?? 0),
    reasoningTokens: 0,
  };
}

export function openAIFinish(reason: unknown): FinishReason {
  if (reason === "stop" || reason === "length" || reason === "tool_calls" || reason === "content_filter")
    return reason;
  if (reason === "function_call") return "tool_calls";
  return reason ? "other" : "stop";
}

export function anthropicFinish(reason: unknown): FinishReason {
  if (reason === "tool_use") return "tool_calls";
  if (reason === "max_tokens") return "length";
  if (reason === "refusal") return "content_filter";
  return reason === "end_turn" || reason === "stop_sequence" || !reason ? "stop" : "other";
}

function parseArgs(text: unknown): Record<string, unknown> {
  if (typeof text !== "string" || !text) return {};
  try {
    const value = JSON.parse(text) as unknown;
    return obj(value) ?? { value };
  } catch {
    return { _raw: text };
  }
}

/** What an answer said, for the audit trail and the ledger (the caller gets the answer itself, untouched). */
export type AnswerSummary = {
  content: string;
  toolCalls: ToolCall[];
  finishReason: FinishReason;
  usage?: Usage;
  model?: string;
  /** What the provider's content filter filtered (Azure OpenAI), as `filteredBy` names it. */
  contentFilter?: string[];
  /** Images and audio: the units the call is billed by. */
  units?: MediaUnits;
};

/**
 * The categories Azure OpenAI's content filter filtered in one verdict (`content_filter_results`, or an error's
 * `content_filter_result`), as "where: category (severity)", added to `into`. Verdicts that filtered nothing
 * (every annotated answer has them) add nothing.
 */
export function filteredBy(where: string, results: unknown, into: string[]): string[] {
  const verdicts = obj(results);
  if (!verdicts) return into;
  for (const [category, verdict] of Object.entries(verdicts)) {
    const v = obj(verdict);
    if (v?.filtered !== true) continue;
    const severity = typeof v.severity === "string" && v.severity !== "safe" ? ` (${v.severity})` : "";
    const entry = `${where}: ${category}${severity}`;
    if (!into.includes(entry)) into.push(entry);
  }
  return into;
}

/** An Azure OpenAI chat answer's (or chunk's) filter verdicts on the prompt and on each choice. */
export function azureFilterVerdicts(body: Json, into: string[]): string[] {
  if (Array.isArray(body.prompt_filter_results))
    for (const p of body.prompt_filter_results as Json[])
      filteredBy("prompt", p.content_filter_results, into);
  if (Array.isArray(body.choices))
    for (const c of body.choices as Json[]) filteredBy("answer", obj(c)?.content_filter_results, into);
  return into;
}

/** The filter verdicts of a provider's error body: Azure's 400 `content_filter` for a filtered prompt. */
export function contentFilterOfError(body: unknown): string[] | undefined {
  const e = obj(obj(body)?.error) ?? obj(body);
  if (e?.code !== "content_filter") return undefined;
  const found = filteredBy("prompt", obj(e.innererror)?.content_filter_result, []);
  return found.length ? found : ["prompt: filtered"];
}

/** Reads a whole (not streamed) answer in the upstream's format. */
export function summariseAnswer(format: WireFormat, body: Json): AnswerSummary {
  const model = typeof body.model === "string" ? body.model : undefined;
  switch (format) {
    case "openai-chat": {
      const choice = obj((body.choices as unknown[] | undefined)?.[0]);
      const message = obj(choice?.message);
      const calls = Array.isArray(message?.tool_calls) ? (message.tool_calls as Json[]) : [];
      return {
        content: typeof message?.content === "string" ? message.content : "",
        toolCalls: calls.map((c) => ({
          id: String(c.id ?? ""),
          name: String(obj(c.function)?.name ?? ""),
          args: parseArgs(obj(c.function)?.arguments),
        })),
        finishReason: openAIFinish(choice?.finish_reason),
        usage: openAIUsage(body.usage),
        model,
        ...contentFilterOf(body),
      };
    }
    case "anthropic-messages": {
      const blocks = Array.isArray(body.content) ? (body.content as Json[]) : [];
      return {
        content: blocks
          .filter((b) => b.type === "text")
          .map((b) => String(b.text ?? ""))
          .join(""),
        toolCalls: blocks
          .filter((b) => b.type === "tool_use")
          .map((b) => ({ id: String(b.id ?? ""), name: String(b.name ?? ""), args: obj(b.input) ?? {} })),
        finishReason: anthropicFinish(body.stop_reason),
        usage: anthropicUsage(body.usage),
        model,
      };
    }
    case "openai-responses":
      return responsesSummary(body);
    case "openai-embeddings":
      return { content: "", toolCalls: [], finishReason: "stop", usage: openAIUsage(body.usage), model };
    case "openai-moderations":
      // No usage: a moderation is billed by the call (OpenAI's are free), not by tokens.
      return { content: "", toolCalls: [], finishReason: "stop", model };
    case "anthropic-count-tokens":
    // Images and audio answers are read by media.ts (some are not JSON): nothing to say here.
    case "openai-image-generations":
    case "openai-image-edits":
    case "openai-transcriptions":
    case "openai-translations":
    case "openai-speech":
      return { content: "", toolCalls: [], finishReason: "stop" };
  }
}

function contentFilterOf(body: Json): { contentFilter?: string[] } {
  const verdictOnChoice = (body.choices as Json[] | undefined)?.[0]?.content_filter_results !== undefined;
  if (body.prompt_filter_results === undefined && !verdictOnChoice) return {};
  const found: string[] = [];
  azureFilterVerdicts(body, found);
  return found.length ? { contentFilter: found } : {};
}

function responsesSummary(response: Json): AnswerSummary {
  const output = Array.isArray(response.output) ? (response.output as Json[]) : [];
  const text = output
    .filter((item) => item.type === "message")
    .flatMap((item) => (Array.isArray(item.content) ? (item.content as Json[]) : []))
    .filter((part) => part.type === "output_text")
    .map((part) => String(part.text ?? ""))
    .join("");
  const toolCalls = output
    .filter((item) => item.type === "function_call")
    .map((item) => ({
      id: String(item.call_id ?? item.id ?? ""),
      name: String(item.name ?? ""),
      args: parseArgs(item.arguments),
    }));
  const incomplete = response.status === "incomplete";
  return {
    content: text,
    toolCalls,
    finishReason: toolCalls.length ? "tool_calls" : incomplete ? "length" : "stop",
    usage: openAIUsage(response.usage),
    model: typeof response.model === "string" ? response.model : undefined,
  };
}

/**
 * Follows a stream in the upstream's format, event by event: what it said, its usage as reported so far, and
 * whether it reached its end (a stream that closes before that was cut).
 */
export class StreamSummary {
  content = "";
  usage: Usage | undefined;
  model: string | undefined;
  finishReason: FinishReason = "stop";
  complete = false;
  /** An error event the provider sent inside the stream. */
  error: { type: string; message: string } | undefined;
  /** What the provider's content filter filtered (Azure OpenAI's verdicts ride on its chunks). */
  contentFilter: string[] | undefined;
  private readonly calls = new Map<number, { id: string; name: string; args: string }>();

  constructor(private readonly format: WireFormat) {}

  get toolCalls(): ToolCall[] {
    return [...this.calls.entries()]
      .sort(([a], [b]) => a - b)
      .map(([, c]) => ({ id: c.id, name: c.name, args: parseArgs(c.args) }));
  }

  /** One event's data, parsed (or `[DONE]`), with its `event:` name. */
  add(event: string | undefined, data: Json | "[DONE]"): void {
    if (data === "[DONE]") {
      this.complete = true;
      return;
    }
    if (this.format === "openai-chat") this.openAIChunk(data);
    else if (this.format === "anthropic-messages") this.anthropicEvent(event ?? String(data.type), data);
    else if (this.format === "openai-responses") this.responsesEvent(String(data.type ?? event), data);
  }

  private openAIChunk(chunk: Json): void {
    if (typeof chunk.model === "string" && chunk.model) this.model = chunk.model;
    if (obj(chunk.error)) {
      const e = obj(chunk.error)!;
      this.error = { type: String(e.type ?? "api_error"), message: String(e.message ?? "provider error") };
    }
    const usage = openAIUsage(chunk.usage);
    if (usage) this.usage = usage;
    const choice = obj((chunk.choices as unknown[] | undefined)?.[0]);
    if (chunk.prompt_filter_results !== undefined || choice?.content_filter_results !== undefined) {
      const found = azureFilterVerdicts(chunk, this.contentFilter ?? []);
      if (found.length) this.contentFilter = found;
    }
    if (!choice) return;
    const delta = obj(choice.delta);
    if (typeof delta?.content === "string") this.content += delta.content;
    for (const part of Array.isArray(delta?.tool_calls) ? (delta.tool_calls as Json[]) : []) {
      const index = num(part.index);
      const call = this.calls.get(index) ?? { id: "", name: "", args: "" };
      if (typeof part.id === "string") call.id = part.id;
      const fn = obj(part.function);
      if (typeof fn?.name === "string") call.name += fn.name;
      if (typeof fn?.arguments === "string") call.args += fn.arguments;
      this.calls.set(index, call);
    }
    if (choice.finish_reason) {
      this.finishReason = openAIFinish(choice.finish_reason);
      this.complete = true;
    }
  }

  private anthropicEvent(type: string, data: Json): void {
    if (type === "message_start") {
      const message = obj(data.message);
      if (typeof message?.model === "string") this.model = message.model;
      this.usage = anthropicUsage(message?.usage, this.usage);
    } else if (type === "content_block_start") {
      const block = obj(data.content_block);
      if (block?.type === "tool_use")
        this.calls.set(num(data.index), {
          id: String(block.id ?? ""),
          name: String(block.name ?? ""),
          args: "",
        });
      else if (block?.type === "text" && typeof block.text === "string") this.content += block.text;
    } else if (type === "content_block_delta") {
      const delta = obj(data.delta);
      if (delta?.type === "text_delta") this.content += String(delta.text ?? "");
      else if (delta?.type === "input_json_delta") {
        const call = this.calls.get(num(data.index));
        if (call) call.args += String(delta.partial_json ?? "");
      }
    } else if (type === "message_delta") {
      this.usage = anthropicUsage(data.usage, this.usage);
      const delta = obj(data.delta);
      if (delta?.stop_reason) this.finishReason = anthropicFinish(delta.stop_reason);
    } else if (type === "message_stop") {
      this.complete = true;
    } else if (type === "error") {
      const e = obj(data.error);
      this.error = { type: String(e?.type ?? "api_error"), message: String(e?.message ?? "provider error") };
    }
  }

  private responsesEvent(type: string, data: Json): void {
    if (type === "response.output_text.delta") this.content += String(data.delta ?? "");
    const response = obj(data.response);
    if (typeof response?.model === "string") this.model = response.model;
    if (type === "response.completed" || type === "response.incomplete" || type === "response.failed") {
      const summary = responsesSummary(response ?? {});
      this.usage = summary.usage ?? this.usage;
      this.finishReason = summary.finishReason;
      summary.toolCalls.forEach((call, i) => {
        this.calls.set(i, { id: call.id, name: call.name, args: JSON.stringify(call.args) });
      });
      this.complete = true;
    } else if (type === "error") {
      this.error = {
        type: String(data.code ?? "api_error"),
        message: String(data.message ?? "provider error"),
      };
    }
  }
}

/** The request's text for the ledger's "message" column: roles and text parts, never images' bytes. */
export function describeRequest(format: WireFormat, body: Json, limit = 8000): string {
  const lines: string[] = [];
  const textOf = (content: unknown): string => {
    if (typeof content === "string") return content;
    if (!Array.isArray(content)) return "";
    return (content as Json[])
      .map((part) =>
        typeof part.text === "string" ? part.text : typeof part.type === "string" ? `[${part.type}]` : "",
      )
      .join(" ");
  };
  if (format === "anthropic-messages" || format === "anthropic-count-tokens") {
    if (body.system) lines.push(`system: ${textOf(body.system)}`);
  }
  if (Array.isArray(body.messages)) {
    for (const m of body.messages as Json[]) lines.push(`${String(m.role)}: ${textOf(m.content)}`);
  } else if (format === "openai-responses") {
    if (typeof body.instructions === "string") lines.push(`instructions: ${body.instructions}`);
    if (typeof body.input === "string") lines.push(`user: ${body.input}`);
    else if (Array.isArray(body.input))
      for (const item of body.input as Json[])
        lines.push(`${String(item.role ?? item.type)}: ${textOf(item.content)}`);
  } else if (format === "openai-embeddings" || format === "openai-moderations") {
    const input = body.input;
    lines.push(
      `input: ${typeof input === "string" ? input : Array.isArray(input) ? input.map(inputItemText).join(" | ") : ""}`,
    );
  } else if (format === "openai-speech") {
    lines.push(`input: ${typeof body.input === "string" ? body.input : ""}`);
  } else if (format in MEDIA_TEXT_FIELDS) {
    // The prompt is the request's text; an uploaded file is named by what it is, never by its bytes.
    if (typeof body.prompt === "string") lines.push(`prompt: ${body.prompt}`);
    for (const [field, value] of Object.entries(body))
      for (const file of Array.isArray(value) ? value : [value]) {
        const f = obj(file);
        if (typeof f?.filename === "string" && typeof f.bytes === "number")
          lines.push(`${field}: [file ${f.filename}, ${String(f.contentType)}, ${f.bytes} bytes]`);
      }
  }
  return lines.join("\n").slice(0, limit);
}

/** The image and audio formats whose text is a `prompt` (and whose files are described, not shown). */
const MEDIA_TEXT_FIELDS = {
  "openai-image-generations": true,
  "openai-image-edits": true,
  "openai-transcriptions": true,
  "openai-translations": true,
};

/** One item of an embeddings or moderations input: its text, else what it is (token ids, an image). */
function inputItemText(item: unknown): string {
  if (typeof item === "string") return item;
  const part = obj(item);
  if (typeof part?.text === "string") return part.text;
  return part?.type === "image_url" ? "[image]" : "[tokens]";
}

/** The names of the tools a request offers (OpenAI chat and Responses, Anthropic). */
export function offeredTools(body: Json): string[] {
  if (!Array.isArray(body.tools)) return [];
  return (body.tools as Json[]).map((t) => String(obj(t.function)?.name ?? t.name ?? t.type ?? "tool"));
}
