import { outputCeilingOf, type WireFormat } from "@/lib/gateway/forward/formats";
import { isMediaFormat, mediaDemand, mediaOutputCeiling } from "@/lib/gateway/forward/media";
import type { Json } from "@/lib/gateway/translate/types";
import type { ChatRequest } from "@/lib/gateway/types";

/**
 * A stand-in of the request's size for the budget's estimate: the body's text, with inline files (base64 data
 * of images, audio, PDFs) counted as a few thousand characters each, which is closer to what they are billed.
 */
function sizeText(body: Json): string {
  const whole = JSON.stringify(body);
  // No string in it can be longer than the whole: only a large body needs the look at each value.
  if (whole.length <= 8_000) return whole;
  return JSON.stringify(body, (_key, value: unknown) =>
    typeof value === "string" &&
    value.length > 8_000 &&
    /^(data:|[A-Za-z0-9+/=\s]+$)/.test(value.slice(0, 200))
      ? value.slice(0, 6_400)
      : value,
  );
}

/**
 * What the pipeline's steps read of a wire request (the budget's estimate, the rate limit's count): its alias,
 * its size as one message, and its output ceiling. The request itself goes upstream as the caller sent it.
 */
export function budgetView(format: WireFormat, body: Json): ChatRequest & { model: string } {
  let messages: ChatRequest["messages"] | undefined;
  const media = isMediaFormat(format) ? mediaDemand(format, body) : undefined;
  return {
    model: String(body.model),
    // Read only by a rate limit on tokens or a budget: a call under neither never serialises its body for it.
    get messages() {
      messages ??= [{ role: "user", content: sizeText(body) }];
      return messages;
    },
    maxTokens: media ? mediaOutputCeiling(format, body) : outputCeilingOf(format, body),
    // Images and audio: the units the call may bill at most (n images, the audio's bounded length, characters).
    ...(media ? { media } : {}),
  };
}
