/** Provider-neutral types: what the agent, the /v1 API and the ledger see, whatever provider answered. */

export type ToolCall = { id: string; name: string; args: Record<string, unknown> };

/** An image sent with a user message (vision-capable models only): base64 bytes and their media type. */
export type ImagePart = { mediaType: "image/png" | "image/jpeg" | "image/webp" | "image/gif"; data: string };

export type ChatMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string; images?: ImagePart[] }
  | { role: "assistant"; content: string; toolCalls?: ToolCall[] }
  | { role: "tool"; toolCallId: string; name: string; content: string };

/**
 * What one image counts as, in input tokens, before a provider says (budget reservations, a cut stream's usage, the
 * offline model): about a 1-megapixel image on Anthropic (width × height / 750 ≈ 1,600), more than OpenAI's
 * high-detail 1024×1024 (765). Its base64 length would count a 5 MB image as millions.
 */
export const IMAGE_TOKEN_ESTIMATE = 1_600;

/** How many images the messages carry. */
export const imageCount = (messages: ChatMessage[]): number =>
  messages.reduce((n, m) => n + (m.role === "user" ? (m.images?.length ?? 0) : 0), 0);

export type ToolSchema = {
  name: string;
  description: string;
  /** JSON Schema of the arguments (an object schema). */
  parameters: Record<string, unknown>;
  /** Words that make the offline demo model pick this tool; real models ignore them. */
  keywords?: string[];
};

export type ToolChoice = "auto" | "none" | "required" | { name: string };

/** What a caller asks the gateway for. `model` is an alias from the gateway config. */
export type ChatRequest = {
  model?: string;
  messages: ChatMessage[];
  tools?: ToolSchema[];
  toolChoice?: ToolChoice;
  temperature?: number;
  maxTokens?: number;
  signal?: AbortSignal;
  /** /v1 images and audio: the units the call may bill at most (its budget reservation). */
  media?: MediaUnits;
};

/**
 * What an images or audio call is billed by, beside (or instead of) tokens: images made at a size and quality,
 * seconds of audio heard, characters of text spoken.
 */
export type MediaUnits = {
  images?: number;
  imageSize?: string;
  imageQuality?: string;
  seconds?: number;
  characters?: number;
};

/**
 * Token counts by price class. inputTokens excludes cached tokens (OpenAI's prompt_tokens includes them;
 * Anthropic's input_tokens does not). outputTokens includes reasoning tokens; reasoningTokens is that share.
 */
export type Usage = {
  inputTokens: number;
  cachedInputTokens: number;
  cacheWriteTokens: number;
  outputTokens: number;
  reasoningTokens: number;
};

export const ZERO_USAGE: Usage = Object.freeze({
  inputTokens: 0,
  cachedInputTokens: 0,
  cacheWriteTokens: 0,
  outputTokens: 0,
  reasoningTokens: 0,
});

export function addUsage(a: Usage, b: Usage): Usage {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    cachedInputTokens: a.cachedInputTokens + b.cachedInputTokens,
    cacheWriteTokens: a.cacheWriteTokens + b.cacheWriteTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    reasoningTokens: a.reasoningTokens + b.reasoningTokens,
  };
}

export type FinishReason = "stop" | "tool_calls" | "length" | "content_filter" | "other";

export type ProviderType =
  | "openai"
  | "anthropic"
  | "openai-compatible"
  | "azure-openai"
  | "bedrock"
  | "gemini"
  | "vertex"
  | "offline";

/** One try of one candidate. */
export type Attempt = {
  provider: string;
  model: string;
  outcome: "ok" | "error" | "skipped";
  errorClass?: GatewayErrorClass;
  status?: number;
  durationMs: number;
};

/**
 * How a call's cost was reached: from a price (the catalog or the gateway config's overrides), from a price the
 * tenant admin assumed for a model the catalog does not know, or not at all (the served model has no price: its
 * tokens are recorded, its cost is unknown, never 0).
 */
export type CostStatus = "priced" | "unpriced" | "assumed";

/** The status of several round trips together: one unpriced makes the whole unknown, one assumed makes it assumed. */
export function combineCostStatus(a: CostStatus, b: CostStatus): CostStatus {
  if (a === "unpriced" || b === "unpriced") return "unpriced";
  return a === "assumed" || b === "assumed" ? "assumed" : "priced";
}

/** Who really answered, how, and at what cost: stamped on every result, success or failure. */
export type Stamp = {
  requestedModel: string;
  servedProvider: string | null;
  servedAdapter: ProviderType | null;
  servedModel: string | null;
  /** Index in the alias's candidate list of the one that answered (0 = no fallback). */
  fallbackIndex: number | null;
  attempts: Attempt[];
  usage: Usage;
  /** Exact decimal string in USD; null when the served model has no price (`costStatus` unpriced). */
  cost: string | null;
  costStatus: CostStatus;
  timeToFirstTokenMs: number | null;
  latencyMs: number;
  /** The serving model cannot call tools, so the tools were left out of the request. */
  toolsDropped: boolean;
  /** Part of `usage` is estimated (~4 characters a token): a stream that ended before the provider's count. */
  usageEstimated?: boolean;
  /** Answered from the response cache: nothing was sent to a provider, and it cost nothing. */
  cacheHit?: boolean;
  /** /v1: request fields left out because the alias allows dropping what the serving format cannot carry. */
  droppedParams?: string[];
  /** The alias's routing strategy, when it is not plain fallback (the ledger's `routing`). */
  strategy?: string;
  /** What the provider's own content filter filtered (Azure OpenAI's): "prompt: hate (high)", "answer: violence". */
  contentFilter?: string[];
  /** /v1 images and audio: the units the call was billed by (the ledger's `units`). */
  units?: MediaUnits;
  /** What the tenant's guardrail rules made of the call, when any applied (the ledger's `guardrail`). */
  guardrail?: GuardrailVerdict;
};

/** The strongest thing a call's guardrail rules did (lib/guardrails' outcome, named here for the ledger). */
export type GuardrailVerdict = "passed" | "logged" | "warned" | "redacted" | "blocked";

export type ChatResponse = {
  message: { role: "assistant"; content: string; toolCalls: ToolCall[] };
  finishReason: FinishReason;
  stamp: Stamp;
};

export type GatewayErrorClass =
  | "bad_request"
  | "auth"
  | "not_found"
  | "rate_limited"
  | "server"
  | "timeout"
  | "connection"
  | "stream_interrupted"
  | "aborted"
  | "no_candidate"
  | "unknown_model"
  /** /v1: a request field no candidate of the alias can carry (named in the message and `param`). */
  | "unsupported_parameter"
  | "internal";

/** Events of a streamed call. It always ends with exactly one `done` or `error`. */
export type StreamEvent =
  | { type: "text"; delta: string }
  | { type: "tool_call"; call: ToolCall }
  | {
      type: "fallback";
      from: { provider: string; model: string };
      errorClass: GatewayErrorClass;
      toIndex: number;
      /** Why the candidate was left, when it is more than its class (the field it cannot carry). */
      reason?: string;
    }
  /** /v1 wire calls: the candidate that answers, before the first byte (for the x-tollgate-* headers). */
  | {
      type: "opened";
      provider: string | null;
      model: string | null;
      fallbackIndex: number | null;
      dropped: string[];
      cacheHit?: boolean;
    }
  /** /v1 wire calls: the answer's bytes in the caller's format (a whole JSON body, or SSE frames). */
  | { type: "bytes"; data: string }
  | { type: "done"; response: ChatResponse }
  | {
      type: "error";
      error: {
        class: GatewayErrorClass;
        message: string;
        status?: number;
        retryAfterSeconds?: number;
        /** The request field at fault (unsupported_parameter). */
        param?: string;
        /** The provider's own error event already reached the caller in the stream (pass-through). */
        relayed?: boolean;
      };
      stamp: Stamp;
    };

/** One entry of the model picker. */
export type ModelInfo = {
  alias: string;
  label: string;
  provider: string;
  providerType: ProviderType;
  supportsTools: boolean;
  /** Every candidate takes images (`supportsVision` in the gateway config; openai-compatible only when set). */
  supportsVision: boolean;
  offline: boolean;
  isDefault: boolean;
};
