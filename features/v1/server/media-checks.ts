import type { WireFormat } from "@/lib/gateway/forward/formats";
import type { Json } from "@/lib/gateway/translate/types";

type Problem = { param: string; message: string; code?: string };

const isFile = (value: unknown) =>
  !!value && typeof value === "object" && typeof (value as Json).bytes === "number";
const hasFile = (value: unknown) =>
  Array.isArray(value) ? value.length > 0 && value.every(isFile) : isFile(value);
const nonEmpty = (value: unknown) => typeof value === "string" && value.trim() !== "";
/** `true` as JSON sends it, or as a form does ("true"). */
const truthy = (value: unknown) => value === true || value === "true";

/**
 * What an images or audio request must have before anything is sent, and what this gateway refuses by name:
 * streamed answers (partial images, transcript deltas, speech as server-sent events), which it does not relay.
 */
export function mediaProblemOf(format: WireFormat, body: Json): Problem | null {
  switch (format) {
    case "openai-image-generations":
    case "openai-image-edits":
      if (!nonEmpty(body.prompt)) return { param: "prompt", message: "prompt is required" };
      if (format === "openai-image-edits" && !hasFile(body.image))
        return { param: "image", message: "image is required: one or more image files" };
      if (body.n !== undefined) {
        const n = Number(body.n);
        if (!Number.isSafeInteger(n) || n < 1 || n > 10)
          return { param: "n", message: "n must be a whole number from 1 to 10" };
      }
      if (truthy(body.stream))
        return {
          param: "stream",
          message: "streamed images (partial_images) are not relayed by this gateway; ask without stream",
          code: "unsupported_parameter",
        };
      return null;
    case "openai-transcriptions":
    case "openai-translations":
      if (!hasFile(body.file)) return { param: "file", message: "file is required: the audio to transcribe" };
      if (truthy(body.stream))
        return {
          param: "stream",
          message: "streamed transcripts are not relayed by this gateway; ask without stream",
          code: "unsupported_parameter",
        };
      return null;
    case "openai-speech":
      if (!nonEmpty(body.input)) return { param: "input", message: "input is required: the text to speak" };
      if (body.stream_format !== undefined && body.stream_format !== "audio")
        return {
          param: "stream_format",
          message: `speech as ${String(body.stream_format)} events is not relayed by this gateway; ask for audio`,
          code: "unsupported_parameter",
        };
      return null;
    default:
      return null;
  }
}
