/** Request and response translation between OpenAI Chat Completions and Anthropic Messages, as pure functions. */

export { TOOL_ERROR_PREFIX } from "./anthropic-messages";
export { type AnthropicStreamOptions, anthropicStreamToOpenAIChat } from "./anthropic-stream";
export { anthropicToOpenAIChat } from "./anthropic-to-openai";
export { ANTHROPIC_TO_OPENAI_FIELDS, OPENAI_TO_ANTHROPIC_FIELDS, translationTablesMarkdown } from "./fields";
export { openAIChatStreamToAnthropic } from "./openai-stream";
export { DEFAULT_MAX_TOKENS, JSON_OBJECT_TOOL, openAIChatToAnthropic } from "./openai-to-anthropic";
export {
  anthropicMessageToOpenAIChat,
  openAIChatToAnthropicMessage,
  UnreadableToolArguments,
} from "./responses";
export * from "./types";
