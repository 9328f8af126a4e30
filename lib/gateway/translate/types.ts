/** The wire formats /v1 speaks and the types its translators share (no provider SDKs: plain JSON in and out). */

export type Json = Record<string, unknown>;

/** One server-sent event: `event:` (Anthropic names its events; OpenAI does not) and its `data:` text. */
export type SseEvent = { event?: string; data: string };

/** A request translated for a provider of the other format, and the fields dropped on the alias's say-so. */
export type Translated = {
  body: Json;
  dropped: string[];
  /**
   * Set when an OpenAI `response_format` json_schema/json_object became a forced Anthropic tool of this name:
   * pass it to the response translators (`structuredTool`) so its tool_use comes back as the message content.
   */
  structuredTool?: string;
};

export type TranslateOptions = {
  /** The candidate's model, written into the translated body. */
  model: string;
  /** The alias opted in to dropping what cannot be carried (`"dropUnsupported": true`); else it is refused. */
  dropUnsupported: boolean;
  /** The alias refuses hints too (`"strict": true`) instead of dropping them. */
  strict?: boolean;
  /**
   * Anthropic -> OpenAI only: the field that carries `max_tokens`. OpenAI's own API wants
   * `max_completion_tokens` (the default); many OpenAI-compatible servers still read only `max_tokens`.
   */
  maxTokensField?: "max_tokens" | "max_completion_tokens";
};

/** Options of the response translators: the model name to show, and the request's forced structured-output tool. */
export type ResponseOptions = {
  /** The served model, shown as the response's `model`. */
  model: string;
  /** `Translated.structuredTool` of the request: that tool's input is the answer's JSON text content. */
  structuredTool?: string;
};

/** A stateful translator of one call's stream: each upstream event in, the caller's events out. */
export interface StreamTranslator {
  push(event: SseEvent): SseEvent[];
  /** The upstream stream ended: whatever the caller's format still owes (a final event, OpenAI's [DONE]). */
  end(): SseEvent[];
}

const UNTRANSLATABLE = Symbol.for("tollgate.Untranslatable");

/**
 * A request field the other format cannot carry: the call answers 400 `unsupported_parameter` naming `field`
 * (unless another candidate can carry it). Branded, so `instanceof` holds across bundles.
 */
export class Untranslatable extends Error {
  override name = "Untranslatable";
  readonly [UNTRANSLATABLE] = true;
  static [Symbol.hasInstance](value: unknown): boolean {
    return (
      typeof value === "object" &&
      value !== null &&
      (value as { [UNTRANSLATABLE]?: unknown })[UNTRANSLATABLE] === true
    );
  }
  constructor(
    /** The field's path in the caller's body, e.g. `n`, `messages.2.content.0.input_audio`. */
    readonly field: string,
    /** Why, in a few words: "Anthropic returns one choice". */
    readonly reason: string,
  ) {
    super(`${field}: ${reason}`);
  }
}
