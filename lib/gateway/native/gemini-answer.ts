/** Gemini's GenerateContentResponse (whole, or one streamed frame) read as OpenAI chat: choices, usage, filters. */
import type { Json } from "../translate/types";

const obj = (v: unknown): Json | undefined =>
  v && typeof v === "object" && !Array.isArray(v) ? (v as Json) : undefined;
const list = (v: unknown): Json[] => (Array.isArray(v) ? v.filter((x): x is Json => !!obj(x)) : []);
const num = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : 0);

/** Gemini's finish reasons a content filter gave. */
const FILTERED = new Set([
  "SAFETY",
  "RECITATION",
  "BLOCKLIST",
  "PROHIBITED_CONTENT",
  "SPII",
  "IMAGE_SAFETY",
  "IMAGE_PROHIBITED_CONTENT",
]);

/** Gemini's finish reason as OpenAI's; a stop after function calls is OpenAI's `tool_calls`. */
export function finishReasonOf(reason: unknown, calledTools: boolean): string | null {
  if (typeof reason !== "string" || !reason || reason === "FINISH_REASON_UNSPECIFIED") return null;
  if (reason === "MAX_TOKENS") return "length";
  if (FILTERED.has(reason)) return "content_filter";
  return calledTools ? "tool_calls" : "stop";
}

/** Gemini's usage as OpenAI's: its prompt count already includes the cached tokens, as OpenAI's does. */
export function usageOf(raw: unknown): Json | undefined {
  const u = obj(raw);
  if (!u) return undefined;
  const prompt = num(u.promptTokenCount) + num(u.toolUsePromptTokenCount);
  const thoughts = num(u.thoughtsTokenCount);
  const completion = num(u.candidatesTokenCount) + thoughts;
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: num(u.totalTokenCount) || prompt + completion,
    prompt_tokens_details: { cached_tokens: num(u.cachedContentTokenCount) },
    completion_tokens_details: { reasoning_tokens: thoughts },
  };
}

/**
 * Safety ratings in the shape of Azure OpenAI's filter verdicts (`{category: {filtered, severity}}`), which the
 * gateway already records as the `provider_content_filter` audit event: a blocked rating is `filtered`, other
 * ratings above negligible are shown with their probability. A block with no rating blocked names its reason.
 */
export function verdictsOf(ratings: unknown, blockReason?: unknown): Json | undefined {
  const out: Json = {};
  for (const r of list(ratings)) {
    const probability = typeof r.probability === "string" ? r.probability : "";
    if (r.blocked !== true && (!probability || /NEGLIGIBLE|UNSPECIFIED/.test(probability))) continue;
    const category = String(r.category ?? "unknown")
      .replace(/^HARM_CATEGORY_/, "")
      .toLowerCase();
    out[category] = { filtered: r.blocked === true, severity: probability.toLowerCase() || "high" };
  }
  const blocked = Object.values(out).some((v) => obj(v)?.filtered === true);
  if (typeof blockReason === "string" && blockReason && !blocked)
    out[blockReason.toLowerCase()] = { filtered: true, severity: "high" };
  return Object.keys(out).length ? out : undefined;
}

/** One candidate's parts: its text (thoughts left out) and its function calls, numbered from `firstCall`. */
export function partsOf(candidate: Json, firstCall: number): { text: string; calls: Json[] } {
  let text = "";
  const calls: Json[] = [];
  for (const part of list(obj(candidate.content)?.parts)) {
    if (part.thought === true) continue;
    if (typeof part.text === "string") text += part.text;
    const call = obj(part.functionCall);
    if (call) {
      const id = typeof call.id === "string" && call.id ? call.id : `call_${firstCall + calls.length}`;
      calls.push({
        id,
        type: "function",
        function: { name: String(call.name ?? ""), arguments: JSON.stringify(obj(call.args) ?? {}) },
      });
    }
  }
  return { text, calls };
}

const completionId = (responseId: unknown) =>
  `chatcmpl-${typeof responseId === "string" && responseId ? responseId : crypto.randomUUID()}`;

/** A whole GenerateContentResponse as an OpenAI chat.completion. */
export function geminiAnswerToOpenAIChat(body: Json, model: string): Json {
  const candidates = list(body.candidates);
  const feedback = obj(body.promptFeedback);
  const promptVerdicts = verdictsOf(feedback?.safetyRatings, feedback?.blockReason);
  let callCount = 0;
  const choices = candidates.map((candidate, i) => {
    const { text, calls } = partsOf(candidate, callCount);
    callCount += calls.length;
    const message: Json = { role: "assistant", content: text || (calls.length ? null : ""), refusal: null };
    if (calls.length) message.tool_calls = calls;
    const choice: Json = {
      index: typeof candidate.index === "number" ? candidate.index : i,
      message,
      logprobs: null,
      finish_reason: finishReasonOf(candidate.finishReason, calls.length > 0) ?? "stop",
    };
    const verdicts = verdictsOf(candidate.safetyRatings, filteredReason(candidate.finishReason));
    if (verdicts) choice.content_filter_results = verdicts;
    return choice;
  });
  if (!choices.length) {
    // A blocked prompt: no candidate at all, the reason in promptFeedback.
    choices.push({
      index: 0,
      message: { role: "assistant", content: "", refusal: null },
      logprobs: null,
      finish_reason: feedback?.blockReason ? "content_filter" : "stop",
    });
  }
  const answer: Json = {
    id: completionId(body.responseId),
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model: typeof body.modelVersion === "string" && body.modelVersion ? body.modelVersion : model,
    choices,
  };
  const usage = usageOf(body.usageMetadata);
  if (usage) answer.usage = usage;
  if (promptVerdicts || choices.some((c) => c.content_filter_results))
    answer.prompt_filter_results = promptVerdicts
      ? [{ prompt_index: 0, content_filter_results: promptVerdicts }]
      : [];
  return answer;
}

/** A candidate's finish reason when a filter gave it, as a verdict's category. */
export const filteredReason = (reason: unknown) =>
  typeof reason === "string" && FILTERED.has(reason) ? reason : undefined;

/** Google's error status as the stream error type the gateway classifies (streamErrorClass). */
export function streamErrorType(status: unknown, code: unknown): string {
  if (status === "RESOURCE_EXHAUSTED" || code === 429) return "rate_limit_exceeded";
  if (status === "INVALID_ARGUMENT" || status === "FAILED_PRECONDITION" || code === 400)
    return "invalid_request_error";
  if (status === "UNAUTHENTICATED" || code === 401) return "authentication_error";
  if (status === "PERMISSION_DENIED" || code === 403) return "permission_error";
  return "api_error";
}

export { completionId };
