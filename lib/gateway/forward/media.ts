import { GatewayError } from "../errors";
import { findServedPrice, mediaCostOf, type PriceTable } from "../pricing";
import type { ServingCandidate } from "../routing";
import type { Json } from "../translate/types";
import type { MediaUnits, Stamp, Usage } from "../types";
import type { AnswerSummary, WireFormat } from "./formats";

/**
 * OpenAI's images and audio endpoints: what their answers are (JSON, text, or audio bytes), what units they are
 * billed by, and the most a request can bill before it is sent (its budget reservation).
 */
export const MEDIA_FORMATS: ReadonlySet<WireFormat> = new Set<WireFormat>([
  "openai-image-generations",
  "openai-image-edits",
  "openai-transcriptions",
  "openai-translations",
  "openai-speech",
]);

/** The formats whose request is a multipart/form-data upload (the others' is JSON). */
export const MULTIPART_FORMATS: ReadonlySet<WireFormat> = new Set<WireFormat>([
  "openai-image-edits",
  "openai-transcriptions",
  "openai-translations",
]);

export const isMediaFormat = (format: WireFormat) => MEDIA_FORMATS.has(format);

/**
 * The fewest bytes a second of uploaded audio takes: 1,000 (8 kbit/s, below any speech codec OpenAI takes at its
 * usual settings), so an upload's size over this bounds its length from above, for the reservation.
 */
export const AUDIO_BYTES_PER_SECOND_FLOOR = 1_000;
/** The most output tokens one gpt-image-1 image bills (high quality, 1536x1024: 6,208), rounded up. */
export const IMAGE_OUTPUT_TOKENS_BOUND = 6_240;

const num = (value: unknown) => (typeof value === "number" && Number.isFinite(value) ? value : undefined);
const obj = (value: unknown): Json | undefined =>
  value && typeof value === "object" && !Array.isArray(value) ? (value as Json) : undefined;
const str = (value: unknown) => (typeof value === "string" && value ? value : undefined);

/** How many images a request asks for: its `n` (a number in JSON, a string in a form), 1 when unset. */
export function imagesAsked(body: Json): number {
  const n = Number(body.n ?? 1);
  return Number.isSafeInteger(n) && n > 0 ? n : 1;
}

/** Characters of text a speech request speaks (code points, as the provider counts them). */
export const charactersOf = (text: unknown) => (typeof text === "string" ? [...text].length : 0);

/** The size of every file in a multipart body's fields, as the handler describes them (`bytes`). */
function uploadedBytes(body: Json): number {
  let total = 0;
  for (const value of Object.values(body))
    for (const item of Array.isArray(value) ? value : [value]) total += num(obj(item)?.bytes) ?? 0;
  return total;
}

/**
 * The most a request can bill, in units, before it is sent: `n` images at the requested size and quality, the
 * audio's length bounded from its size, the characters of the text to speak.
 */
export function mediaDemand(format: WireFormat, body: Json): MediaUnits | undefined {
  switch (format) {
    case "openai-image-generations":
    case "openai-image-edits":
      return { images: imagesAsked(body), imageSize: str(body.size), imageQuality: str(body.quality) };
    case "openai-transcriptions":
    case "openai-translations":
      return { seconds: Math.ceil(uploadedBytes(body) / AUDIO_BYTES_PER_SECOND_FLOOR) };
    case "openai-speech":
      return { characters: charactersOf(body.input) };
    default:
      return undefined;
  }
}

/** An output ceiling in tokens for a token-priced media model (gpt-image-1): each image's largest bill. */
export function mediaOutputCeiling(format: WireFormat, body: Json): number {
  return format === "openai-image-generations" || format === "openai-image-edits"
    ? imagesAsked(body) * IMAGE_OUTPUT_TOKENS_BOUND
    : 0;
}

/** The answer's content type to the caller: speech's audio by its format, transcripts in text formats as text. */
export function mediaContentType(format: WireFormat, body: Json): string {
  if (format === "openai-speech") return AUDIO_TYPES[String(body.response_format ?? "mp3")] ?? "audio/mpeg";
  if (isTranscript(format) && TEXT_FORMATS.has(String(body.response_format ?? "json")))
    return "text/plain; charset=utf-8";
  return "application/json";
}

const AUDIO_TYPES: Record<string, string> = {
  mp3: "audio/mpeg",
  opus: "audio/opus",
  aac: "audio/aac",
  flac: "audio/flac",
  wav: "audio/wav",
  pcm: "audio/pcm",
};
const TEXT_FORMATS = new Set(["text", "srt", "vtt"]);
const isTranscript = (format: WireFormat) =>
  format === "openai-transcriptions" || format === "openai-translations";

/** gpt-image-1's and gpt-4o-transcribe's `usage`: input and output tokens, text and image/audio together. */
function mediaUsage(usage: unknown): Usage | undefined {
  const u = obj(usage);
  const input = num(u?.input_tokens);
  const output = num(u?.output_tokens);
  if (input === undefined && output === undefined) return undefined;
  return {
    inputTokens: input ?? 0,
    cachedInputTokens: 0,
    cacheWriteTokens: 0,
    outputTokens: output ?? 0,
    reasoningTokens: 0,
  };
}

/**
 * A media answer as the caller gets it (audio as a byte-for-byte "binary" string, for the `bytes` event), and
 * what it says: the transcript's text for the audit, the units billed, the tokens where the provider reports them.
 */
export function mediaAnswer(
  format: WireFormat,
  request: Json,
  raw: Buffer,
): { text: string; summary: AnswerSummary } {
  const base = { toolCalls: [], finishReason: "stop" as const };
  if (format === "openai-speech")
    return {
      text: raw.toString("latin1"),
      summary: { ...base, content: "", units: { characters: charactersOf(request.input) } },
    };
  const text = raw.toString("utf8");
  if (isTranscript(format) && TEXT_FORMATS.has(String(request.response_format ?? "json")))
    // A text transcript says nothing of its length: the seconds are unknown (the cost, unless token-priced).
    return { text, summary: { ...base, content: text, units: {} } };
  let answer: Json;
  try {
    answer = JSON.parse(text) as Json;
  } catch {
    throw new GatewayError("server", "the provider's answer was not JSON", 502);
  }
  const usage = mediaUsage(answer.usage);
  const model = str(answer.model);
  if (isTranscript(format)) {
    const u = obj(answer.usage);
    const seconds = num(answer.duration) ?? (u?.type === "duration" ? num(u.seconds) : undefined);
    return {
      text,
      summary: {
        ...base,
        content: String(answer.text ?? ""),
        units: seconds === undefined ? {} : { seconds },
        ...(u?.type === "tokens" && usage ? { usage } : {}),
        ...(model ? { model } : {}),
      },
    };
  }
  const images = Array.isArray(answer.data) ? answer.data.length : 0;
  return {
    text,
    summary: {
      ...base,
      content: "",
      units: {
        images,
        ...sized("imageSize", str(answer.size) ?? str(request.size)),
        ...sized("imageQuality", str(answer.quality) ?? str(request.quality)),
      },
      ...(usage ? { usage } : {}),
      ...(model ? { model } : {}),
    },
  };
}

const sized = (key: "imageSize" | "imageQuality", value: string | undefined) =>
  value ? { [key]: value } : {};

/**
 * Prices a media call's stamp by its units (images, seconds, characters) at the served model's price, else by
 * the tokens it reported; unpriced when neither is known (the budget then keeps its reservation).
 */
export function priceMedia(
  stamp: Stamp,
  units: MediaUnits,
  prices: PriceTable,
  serving: ServingCandidate,
): void {
  stamp.units = units;
  const price = findServedPrice(
    prices,
    serving.provider,
    stamp.servedModel ?? serving.candidate.model,
    serving.candidate.model,
  );
  const cost = price ? mediaCostOf(stamp.usage, units, price) : null;
  stamp.cost = cost;
  stamp.costStatus = cost === null ? "unpriced" : "priced";
}
