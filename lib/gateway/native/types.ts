import type { Readable } from "node:stream";
import type { Json, TranslateOptions } from "../translate/types";

/** An OpenAI chat body translated for a native provider: its body, and the fields left out (hints, or dropped). */
export type NativeRequest = { body: Json; dropped: string[] };

/** Where a native request goes and with which headers (its key, signature or token). */
export type NativeTarget = { url: string; headers: Record<string, string> };

/**
 * A provider with an API of its own (AWS Bedrock's Converse, Google's generateContent). It serves every /v1
 * dialect through OpenAI Chat Completions: a request in OpenAI chat form (an Anthropic caller's is translated to
 * it first) is translated into the provider's, and its answer and stream come back as OpenAI chat, so the rest
 * of the gateway (answer summaries, usage, the Anthropic translators, the drawer's OpenAI adapter) reads them as
 * it reads OpenAI's. One instance per configured provider: it holds that provider's credentials and caches.
 */
export interface NativeProvider {
  /** An OpenAI chat body (its `model` the candidate's) in the provider's form; Untranslatable for what it cannot carry. */
  translate(body: Json, options: TranslateOptions & { stream: boolean }): NativeRequest;
  /** Where the exact `bodyText` is sent and its headers (async: a SigV4 signature, an OAuth token). */
  target(model: string, stream: boolean, bodyText: string, signal: AbortSignal): Promise<NativeTarget>;
  /** The provider's whole answer as an OpenAI chat completion (`model`: the candidate's, unless it names one). */
  answer(body: Json, model: string): Json;
  /**
   * The provider's streamed answer as OpenAI chat completion chunks, SSE text: `data: {chunk}\n\n` per chunk, a
   * usage-only chunk (`choices: []`, `usage`) once the usage is known, then `data: [DONE]\n\n`. An error the
   * provider sends inside its stream becomes a chunk `{"error": {"type", "message"}}`; a stream that ends early
   * ends without `[DONE]` (the gateway reads that as cut).
   */
  stream(body: Readable, model: string): Readable;
}
