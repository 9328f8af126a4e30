// PLACEHOLDER until the translation helper lands: every translation is refused.
import {
  type Json,
  type SseEvent,
  type StreamTranslator,
  type Translated,
  type TranslateOptions,
  Untranslatable,
} from "./types";

export * from "./types";

export function openAIChatToAnthropic(_body: Json, _opts: TranslateOptions): Translated {
  throw new Untranslatable("model", "not translated yet");
}
export function anthropicToOpenAIChat(_body: Json, _opts: TranslateOptions): Translated {
  throw new Untranslatable("model", "not translated yet");
}
export function anthropicMessageToOpenAIChat(message: Json, _opts: { model: string }): Json {
  return message;
}
export function openAIChatToAnthropicMessage(completion: Json, _opts: { model: string }): Json {
  return completion;
}
export function anthropicStreamToOpenAIChat(_opts: {
  model: string;
  includeUsage: boolean;
}): StreamTranslator {
  return { push: (e: SseEvent) => [e], end: () => [] };
}
export function openAIChatStreamToAnthropic(_opts: { model: string }): StreamTranslator {
  return { push: (e: SseEvent) => [e], end: () => [] };
}
