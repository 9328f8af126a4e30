import type { NativeProvider } from "../native/types";
import {
  anthropicMessageToOpenAIChat,
  anthropicStreamToOpenAIChat,
  anthropicToOpenAIChat,
  openAIChatStreamToAnthropic,
  openAIChatToAnthropic,
  openAIChatToAnthropicMessage,
} from "../translate";
import {
  openAIChatStreamToResponses,
  openAIChatToResponse,
  responsesToOpenAIChat,
} from "../translate/responses-chat";
import { type Json, type StreamTranslator, Untranslatable } from "../translate/types";
import type { ProviderType } from "../types";
import { FAMILY, PROVIDER_FAMILY, type WireFormat } from "./formats";
import { type MultipartPart, withModel } from "./multipart";

/** A request in a caller's wire format, for the gateway to carry whole, translate, or refuse. */
export type WireRequest = {
  format: WireFormat;
  /** The alias the caller named (its body's `model`). */
  alias: string;
  /** The caller's body, as parsed. */
  body: Json;
  stream: boolean;
  /** Anthropic's request headers, carried to an Anthropic provider. */
  headers?: { anthropicVersion?: string; anthropicBeta?: string };
  /** An output ceiling the budget imposed on a call that set none (sent in the upstream's own field). */
  maxTokens?: number;
  signal?: AbortSignal;
  /** A multipart upload (image edits, audio), its parts in order: `body` then holds its fields, for reading. */
  multipart?: MultipartPart[];
};

/** How one candidate serves a wire request: what is sent, in which format, and how the answer comes back. */
export type Plan = {
  upstream: WireFormat;
  body: Json;
  anthropicBeta?: string;
  /** The fields left out: hints the other format has no equivalent for, and more on the alias's `dropUnsupported` say-so. */
  dropped: string[];
  /** Translates a whole answer into the caller's format (none: it goes back as it came). */
  convertJson?: (answer: Json) => Json;
  /** Translates a stream (made per attempt: translators keep state). */
  streamTranslator?: () => StreamTranslator;
  /** The caller did not ask for a stream's usage: the usage-only chunk we asked for is not shown to it. */
  hideUsage: boolean;
  /**
   * A native API (Bedrock) serves it: `body` is in the provider's own form, and its answer and stream come back
   * as OpenAI chat (`upstream`), before `convertJson` and `streamTranslator` turn them into the caller's.
   */
  native?: NativeProvider;
  /** A multipart upload as sent: the caller's parts, `model` the candidate's. */
  multipart?: MultipartPart[];
};

/** What a request of each format asks for, as a refusal names it. */
const WHAT: Record<WireFormat, string> = {
  "openai-chat": "chat completions",
  "openai-embeddings": "embeddings",
  "openai-moderations": "moderations",
  "openai-responses": "the Responses API",
  "openai-image-generations": "image generations",
  "openai-image-edits": "image edits",
  "openai-transcriptions": "audio transcriptions",
  "openai-translations": "audio translations",
  "openai-speech": "speech",
  "anthropic-messages": "messages",
  "anthropic-count-tokens": "token counting",
};

const has = (body: Json, field: string) => body[field] !== undefined && body[field] !== null;

/** Providers whose chat completions take `max_completion_tokens` (compatible servers mostly know `max_tokens`). */
const NEW_TOKENS_FIELD = new Set<ProviderType>(["openai", "azure-openai"]);

/** Where each format's output ceiling goes, by the provider that will read it. */
function capField(format: WireFormat, type: ProviderType): string | undefined {
  if (format === "openai-chat") return NEW_TOKENS_FIELD.has(type) ? "max_completion_tokens" : "max_tokens";
  if (format === "openai-responses") return "max_output_tokens";
  if (format === "anthropic-messages") return "max_tokens";
  return undefined;
}

function withCap(body: Json, format: WireFormat, type: ProviderType, cap: number | undefined): Json {
  const field = capField(format, type);
  if (cap === undefined || !field) return body;
  if (format === "openai-chat" && (has(body, "max_tokens") || has(body, "max_completion_tokens")))
    return body;
  return has(body, field) ? body : { ...body, [field]: cap };
}

/**
 * Decides how a candidate serves the request. Same family: the body unchanged but `model` (and, for an OpenAI
 * stream, `stream_options.include_usage`, so the ledger gets its tokens). Other family: translated both ways, or
 * an `Untranslatable` naming the field that cannot be carried.
 */
export function planFor(
  req: WireRequest,
  provider: { type: ProviderType },
  model: string,
  policy: { dropUnsupported: boolean; strict?: boolean },
  native?: NativeProvider,
): Plan {
  const caller = FAMILY[req.format];
  const serving = PROVIDER_FAMILY[provider.type];
  if (req.format === "openai-responses" && (native || serving !== "openai"))
    return responsesThroughChat(req, provider, model, policy, native);
  if (native) return nativePlan(req, provider, model, policy, native);
  const { dropUnsupported } = policy;
  if (caller === serving) {
    if (provider.type === "offline" && req.format !== "openai-chat")
      throw new Untranslatable("model", `the offline demo model serves chat only, not ${req.format}`);
    let body: Json = withCap({ ...req.body, model }, req.format, provider.type, req.maxTokens);
    let hideUsage = false;
    if (req.stream && req.format === "openai-chat") {
      const options = (body.stream_options ?? {}) as Json;
      if (options.include_usage !== true) {
        hideUsage = true;
        body = { ...body, stream_options: { ...options, include_usage: true } };
      }
    }
    const multipart = req.multipart && withModel(req.multipart, model);
    return {
      upstream: req.format,
      body,
      anthropicBeta: req.headers?.anthropicBeta,
      dropped: [],
      hideUsage,
      ...(multipart ? { multipart } : {}),
    };
  }
  const options = { model, dropUnsupported, strict: policy.strict };
  if (req.format === "openai-chat") {
    const callerWantsUsage = ((req.body.stream_options ?? {}) as Json).include_usage === true;
    const t = openAIChatToAnthropic(withCap(req.body, "openai-chat", "openai", req.maxTokens), options);
    return {
      upstream: "anthropic-messages",
      body: t.body,
      dropped: t.dropped,
      convertJson: (answer) =>
        anthropicMessageToOpenAIChat(answer, {
          model: String(answer.model ?? model),
          structuredTool: t.structuredTool,
        }),
      streamTranslator: () =>
        anthropicStreamToOpenAIChat({
          model,
          includeUsage: callerWantsUsage,
          structuredTool: t.structuredTool,
        }),
      hideUsage: false,
    };
  }
  if (req.format === "anthropic-messages") {
    const dropped: string[] = [];
    if (req.headers?.anthropicBeta) {
      if (!dropUnsupported)
        throw new Untranslatable(
          "anthropic-beta",
          "beta features are Anthropic's; an OpenAI model cannot serve them",
        );
      dropped.push("anthropic-beta");
    }
    const t = anthropicToOpenAIChat(req.body, {
      ...options,
      maxTokensField: NEW_TOKENS_FIELD.has(provider.type) ? "max_completion_tokens" : "max_tokens",
    });
    const body = req.stream ? { ...t.body, stream: true, stream_options: { include_usage: true } } : t.body;
    return {
      upstream: "openai-chat",
      body,
      dropped: [...dropped, ...t.dropped],
      convertJson: (answer) => openAIChatToAnthropicMessage(answer, { model: String(answer.model ?? model) }),
      streamTranslator: () => openAIChatStreamToAnthropic({ model }),
      hideUsage: false,
    };
  }
  throw new Untranslatable(
    "model",
    `${WHAT[req.format]} need a candidate of the ${caller === "openai" ? "OpenAI" : "Anthropic"} type, and this one is ${provider.type}`,
  );
}

/**
 * A Responses request for a model reached through chat (Anthropic, a native API): translated to an OpenAI chat
 * request, planned as one, and its answer and stream turned from chat into a Response and Responses' events.
 */
function responsesThroughChat(
  req: WireRequest,
  provider: { type: ProviderType },
  model: string,
  policy: { dropUnsupported: boolean; strict?: boolean },
  native: NativeProvider | undefined,
): Plan {
  const t = responsesToOpenAIChat(req.body, {
    model,
    dropUnsupported: policy.dropUnsupported,
    strict: policy.strict,
  });
  const chat = planFor({ ...req, format: "openai-chat", body: t.body }, provider, model, policy, native);
  const request = req.body;
  return {
    ...chat,
    dropped: [...t.dropped, ...chat.dropped],
    convertJson: (answer) =>
      openAIChatToResponse(chat.convertJson ? chat.convertJson(answer) : answer, request, model),
    streamTranslator: () => chained(chat.streamTranslator?.(), openAIChatStreamToResponses(request, model)),
    hideUsage: false,
  };
}

/** Two stream translators one after the other (the first may be none). */
function chained(first: StreamTranslator | undefined, second: StreamTranslator): StreamTranslator {
  if (!first) return second;
  return {
    push: (event) => first.push(event).flatMap((e) => second.push(e)),
    end: () => [...first.end().flatMap((e) => second.push(e)), ...second.end()],
  };
}

/**
 * A native provider's plan: the request as an OpenAI model would be sent it (an Anthropic caller's translated,
 * an OpenAI caller's whole), then that OpenAI chat body in the provider's form. What either step cannot carry is
 * refused by name (the second names the OpenAI chat field).
 */
function nativePlan(
  req: WireRequest,
  provider: { type: ProviderType },
  model: string,
  policy: { dropUnsupported: boolean; strict?: boolean },
  native: NativeProvider,
): Plan {
  if (req.format !== "openai-chat" && req.format !== "anthropic-messages")
    throw new Untranslatable(
      "model",
      `${WHAT[req.format]} need a candidate of the OpenAI type; ${provider.type} serves chat completions and messages`,
    );
  const asOpenAI = planFor(req, { type: "openai" }, model, policy);
  const t = native.translate(asOpenAI.body, {
    model,
    dropUnsupported: policy.dropUnsupported,
    strict: policy.strict,
    stream: req.stream,
  });
  return {
    ...asOpenAI,
    upstream: "openai-chat",
    body: t.body,
    dropped: [...asOpenAI.dropped, ...t.dropped],
    native,
  };
}

/** A chunk with no choices and a usage: the one OpenAI sends last when include_usage is on. */
export const isUsageOnlyChunk = (data: Json) =>
  Array.isArray(data.choices) && data.choices.length === 0 && data.usage != null;

/**
 * With include_usage on, OpenAI writes `"usage":null` into every other chunk; a caller that did not ask for it
 * gets its chunks as they would have been. Cut from the text (a JSON string's quotes are escaped, so this cannot
 * match inside content), so nothing else in the chunk is re-serialised.
 */
export const withoutNullUsage = (text: string) => text.replace(/,\s*"usage"\s*:\s*null(?=\s*[,}])/, "");
