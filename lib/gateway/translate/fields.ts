/**
 * What happens to each field of a request translated to the other format, as data: the translators take their
 * list of known top-level fields from here (anything else is refused by name), and docs/translation.md is
 * rendered from it, so the code and the README cannot drift apart. "refused" means 400 `unsupported_parameter`
 * naming the field, or, when the alias sets `dropUnsupported`, left out and listed in `dropped`. "dropped (a
 * hint)" means left out and listed in any case, and refused only when the alias is `strict`.
 */

export const OPENAI_TO_ANTHROPIC_FIELDS: Record<string, string> = {
  model: "translated: replaced by the serving candidate's model",
  messages: "translated: see the `messages[]` rows",
  "messages[] system / developer":
    "translated: leading ones become the top-level `system` (a string for one string message, else text blocks, in order); one after the conversation started is refused (only some Claude models take mid-conversation system messages)",
  "messages[] user":
    "translated: string content as is; `text` parts to text blocks; `image_url` data: URLs to base64 image blocks (jpeg/png/gif/webp), http(s) URLs to `source: {type: url}`; `file` parts with PDF `file_data` to base64 document blocks",
  "messages[].content[] text.cache_control":
    "translated: passed through as Anthropic's prompt-caching marker (an extension OpenAI-compatible clients send for Claude)",
  "messages[].content[] image_url.detail":
    'translated when "auto"; "low"/"high" dropped (a hint: Anthropic has no resolution control)',
  "messages[].content[] input_audio / file_id / other parts": "refused: Anthropic takes no audio or file ids",
  "messages[] assistant":
    "translated: text (string or text parts) to text blocks; `tool_calls` to tool_use blocks with the arguments parsed (arguments that are not a JSON object are refused); a final assistant message is refused (Anthropic would continue it as a prefill, OpenAI answers after it)",
  "messages[] assistant refusal / audio / function_call": "refused: no Anthropic equivalent",
  "messages[] tool":
    "translated: a user message of tool_result blocks (`tool_call_id` to `tool_use_id`, text content); consecutive tool results and consecutive same-role messages merge into one message, as Anthropic requires alternation",
  "messages[] function": "refused: the deprecated function role (use tools)",
  "messages[].name": "dropped (a hint): Anthropic has no per-message author name",
  max_completion_tokens: "translated: `max_tokens`",
  max_tokens:
    "translated: `max_tokens` (`max_completion_tokens` wins when both are set); absent: 4096, since Anthropic requires a limit",
  temperature:
    "accepted when 1 (the default), not sent; any other value refused: Anthropic's current API (2026-10-21) takes no sampling parameters",
  top_p: "accepted when 1 (the default), not sent; any other value refused, as for temperature",
  stop: "translated: `stop_sequences` (a string becomes a one-element list)",
  stream: "translated: `stream`",
  stream_options:
    "accepted, not sent: usage always arrives on an Anthropic stream; the gateway emits OpenAI's usage chunk when `include_usage` is set",
  tools:
    "translated: function tools to `{name, description, input_schema}` (no parameters: an empty object schema); `strict` is sent as Anthropic's `strict`; custom tools refused",
  tool_choice:
    'translated: "auto" to `{type: auto}`, "required" to `{type: any}`, "none" to `{type: none}`, a named function to `{type: tool, name}`; `allowed_tools` and custom refused',
  parallel_tool_calls:
    "translated: true is Anthropic's default; false sets `tool_choice.disable_parallel_tool_use`",
  user: "translated: `metadata.user_id`; dropped (a hint) when it differs from `safety_identifier`, which wins",
  safety_identifier: "translated: `metadata.user_id`",
  response_format:
    '"text" accepted; `json_schema` becomes a forced tool named after the schema (input_schema = the schema, `strict` kept) and the response turns its input back into the message\'s JSON content with finish_reason "stop"; `json_object` likewise with a forced tool `json_object` of schema `{type: object}`; refused together with tools the model may call (a forced tool would stop it calling them)',
  n: "accepted when 1; more refused (Anthropic returns one choice)",
  logprobs: "accepted when false; true refused (Anthropic returns no log probabilities)",
  top_logprobs: "accepted when 0; more refused",
  logit_bias: "accepted when empty; otherwise refused (no Anthropic equivalent)",
  seed: "refused: Anthropic has no seed",
  presence_penalty: "accepted when 0; otherwise refused (no Anthropic equivalent)",
  frequency_penalty: "accepted when 0; otherwise refused (no Anthropic equivalent)",
  modalities: 'accepted when ["text"]; audio refused',
  audio: "refused: Anthropic produces no audio",
  prediction: "refused: Anthropic has no predicted outputs",
  web_search_options: "refused: web search is an Anthropic server tool the caller did not ask for",
  reasoning_effort:
    '"low", "medium", "high", "xhigh" to `output_config.effort`; "none" to `thinking: {type: disabled}`; "minimal" refused (a model without effort control answers 400 itself)',
  verbosity: 'accepted when "medium" (the default); other values refused',
  metadata: "accepted when empty; otherwise dropped (a hint: Anthropic's metadata holds only a user id)",
  store: "accepted when false; true dropped (a hint: Anthropic keeps no completions to retrieve)",
  service_tier:
    '"auto" to "auto", "default" to "standard_only"; "flex", "scale" and "priority" dropped (a hint: Anthropic offers standard capacity)',
  prompt_cache_key: "accepted, not sent: a cache-routing hint that changes no answer",
  prompt_cache_retention: 'accepted when "in-memory"; "24h" dropped (a hint: Anthropic keeps caches shorter)',
  functions: "refused: deprecated (use tools)",
  function_call: "refused: deprecated (use tool_choice)",
};

export const OPENAI_TO_GEMINI_FIELDS: Record<string, string> = {
  model: "translated: the serving candidate's model, in the URL (`models/{model}:generateContent`)",
  messages: "translated: `contents` (roles `user` and `model`), see the `messages[]` rows",
  "messages[] system / developer":
    "translated: leading ones become `systemInstruction` (text parts, in order); one after the conversation started is refused (Gemini takes one system instruction for the whole request)",
  "messages[] user":
    "translated: string content and `text` parts to text parts; `image_url` data: URLs to `inlineData`, http(s) URLs ending in a known image extension (.png, .jpg, .jpeg, .webp, .gif, .heic, .heif) to `fileData` (other URLs refused: Gemini needs the file's type); `input_audio` (wav, mp3) to `inlineData`; `file` parts with `file_data` to `inlineData` of the data URL's type",
  "messages[].content[] image_url.detail":
    'translated when "auto"; "low"/"high" dropped (a hint: Gemini sets media resolution per request, not per image)',
  "messages[].content[] file_id / other parts": "refused: Gemini takes no OpenAI file ids",
  "messages[] assistant":
    "translated: a `model` turn: text to text parts; `tool_calls` to `functionCall` parts with the arguments parsed (arguments that are not a JSON object are refused; for models after gemini-2.x a turn's first call carries the `thoughtSignature` Google documents for histories from elsewhere, `skip_thought_signature_validator`); a final assistant message is refused (Gemini would continue it instead of answering after it)",
  "messages[] assistant refusal / audio / function_call": "refused: no Gemini equivalent",
  "messages[] tool":
    "translated: a `functionResponse` part `{name, response: {output}}` in a user turn (the name is the one the matching `tool_call_id` was called with: Gemini matches results by name); a JSON object content is sent as the response itself; consecutive same-role messages merge into one turn",
  "messages[] function": "refused: the deprecated function role (use tools)",
  "messages[].name": "dropped (a hint): Gemini has no per-message author name",
  max_completion_tokens: "translated: `generationConfig.maxOutputTokens`",
  max_tokens:
    "translated: `generationConfig.maxOutputTokens` (`max_completion_tokens` wins when both are set); absent: the model's own limit",
  temperature: "translated: `generationConfig.temperature`",
  top_p: "translated: `generationConfig.topP`",
  stop: "translated: `generationConfig.stopSequences` (a string becomes a one-element list)",
  seed: "translated: `generationConfig.seed`",
  presence_penalty: "translated: `generationConfig.presencePenalty`",
  frequency_penalty: "translated: `generationConfig.frequencyPenalty`",
  n: "translated: `generationConfig.candidateCount` (each candidate one choice)",
  stream: "translated: the `:streamGenerateContent?alt=sse` method instead of `:generateContent`",
  stream_options:
    "accepted, not sent: usage always arrives on a Gemini stream; the gateway emits OpenAI's usage chunk",
  tools:
    "translated: function tools to one `functionDeclarations` tool (`parameters` as `parametersJsonSchema`); `strict` dropped (a hint: Gemini has no per-tool strict mode); custom tools refused",
  tool_choice:
    'translated to `toolConfig.functionCallingConfig`: "auto" to AUTO, "required" to ANY, "none" to NONE, a named function to ANY with `allowedFunctionNames: [name]`; `allowed_tools` with mode "required" to ANY with those names, with mode "auto" refused (Gemini restricts names only when a call is required); custom refused',
  parallel_tool_calls:
    "accepted when true (Gemini may call several functions at once); false refused (Gemini cannot be limited to one call)",
  response_format:
    '"text" accepted; `json_object` to `responseMimeType: application/json`; `json_schema` to `responseMimeType: application/json` and `responseJsonSchema` (the schema)',
  reasoning_effort:
    '`generationConfig.thinkingConfig`: for gemini-2.x models "none" to `thinkingBudget: 0`, "minimal"/"low" 1024, "medium" 8192, "high" 24576; for later models "minimal", "low", "medium", "high" to `thinkingLevel` and "none" to "minimal"; "xhigh" refused',
  logprobs: "accepted when false; true refused (Gemini's log probabilities are not translated back)",
  top_logprobs: "accepted when 0; more refused",
  logit_bias: "accepted when empty; otherwise refused (no Gemini equivalent)",
  modalities: 'accepted when ["text"]; audio refused',
  audio: "refused: the gateway translates no Gemini audio output",
  prediction: "refused: Gemini has no predicted outputs",
  web_search_options: "refused: Google Search grounding is a Gemini tool the caller did not ask for",
  verbosity: 'accepted when "medium" (the default); other values refused',
  user: "dropped (a hint): Gemini takes no end-user id",
  safety_identifier: "dropped (a hint): Gemini takes no end-user id",
  metadata: "accepted when empty; otherwise dropped (a hint: Gemini keeps no request metadata)",
  store: "accepted when false; true dropped (a hint: Gemini keeps no completions to retrieve)",
  service_tier: '"auto" and "default" accepted, not sent; "flex", "scale" and "priority" dropped (a hint)',
  prompt_cache_key: "accepted, not sent: a cache-routing hint that changes no answer",
  prompt_cache_retention: 'accepted when "in-memory"; "24h" dropped (a hint: Gemini caches implicitly)',
  functions: "refused: deprecated (use tools)",
  function_call: "refused: deprecated (use tool_choice)",
};

export const ANTHROPIC_TO_OPENAI_FIELDS: Record<string, string> = {
  model: "translated: replaced by the serving candidate's model",
  messages: "translated: see the `messages[]` rows",
  system: "translated: a system message first (string, or text parts for several blocks)",
  "messages[] system": "translated: a system message in place (OpenAI takes system messages anywhere)",
  "messages[] user":
    "translated: string content as is; text blocks to text parts; base64 images to data: URL `image_url` parts, URL images as is; base64 PDF documents to `file` parts; tool_result blocks to `tool` messages placed before the rest of the message",
  "messages[] assistant":
    "translated: text blocks to content; tool_use blocks to `tool_calls` (arguments = JSON of the input); a final assistant message (a prefill) is refused: OpenAI answers after it instead of continuing it",
  "messages[].content[] tool_result":
    "translated: a `tool` message with the text content; `is_error: true` is carried as the prefix `Error: ` (OpenAI has no error flag); image content refused",
  "messages[].content[] thinking / redacted_thinking": "refused: OpenAI takes no thinking blocks",
  "messages[].content[] other blocks":
    "refused: file-sourced images, non-PDF documents, search results, server tool blocks",
  "messages[].content[].citations": "refused when set: OpenAI takes no citations",
  cache_control:
    "accepted, not sent (at the top level and on blocks, tools and system): a caching hint; OpenAI caches prompt prefixes automatically",
  max_tokens: "translated: `max_completion_tokens` (or `max_tokens`, per the candidate's `maxTokensField`)",
  stop_sequences: "translated: `stop`",
  temperature: "translated: `temperature` (Anthropic's 0 to 1 is inside OpenAI's 0 to 2)",
  top_p: "translated: `top_p`",
  top_k: "refused: OpenAI has no top_k",
  stream: "translated: `stream`, with `stream_options.include_usage` so usage reaches the caller",
  metadata: "translated: `user_id` to `user`",
  tools:
    "translated: custom tools to function tools (`input_schema` to `parameters`, `strict` kept); server tools (bash, web search, text editor...) refused",
  tool_choice:
    'translated: auto to "auto", any to "required", none to "none", tool to a named function; `disable_parallel_tool_use` to `parallel_tool_calls: false`',
  thinking:
    'accepted when `{type: "disabled"}`, not sent (OpenAI models without reasoning never think; reasoning ones keep their default effort unless `output_config.effort` says); enabled and adaptive refused (OpenAI reasoning takes an effort, not a budget)',
  output_config:
    '`format` (json_schema) to `response_format` json_schema (strict); `effort` low/medium/high/xhigh to `reasoning_effort`, "max" refused',
  service_tier: '"auto" to "auto", "standard_only" to "default"',
  speed: 'accepted when "standard"; "fast" dropped (a hint: OpenAI has no fast mode)',
  container: "refused: OpenAI has no code-execution container",
  mcp_servers: "refused: OpenAI chat completions call no MCP servers",
  inference_geo: "refused: OpenAI chat completions take no inference region",
};

/** OpenAI chat served by AWS Bedrock's Converse API (lib/gateway/translate/converse.ts). */
export const OPENAI_TO_CONVERSE_FIELDS: Record<string, string> = {
  model: "translated: the candidate's model id (or inference profile) goes in the URL path, not the body",
  messages: "translated: see the `messages[]` rows",
  "messages[] system / developer":
    "translated: leading ones become `system` text blocks, in order; one after the conversation started is refused",
  "messages[] user":
    "translated: text to `text` blocks; `image_url` data: URLs (jpeg/png/gif/webp) to `image` blocks with base64 bytes; `file` parts with data of pdf, csv, txt, md or html to `document` blocks; http(s) image URLs, file ids and audio refused",
  "messages[].content[] text.cache_control":
    "dropped (a hint): Converse marks cache points with its own blocks",
  "messages[].content[] image_url.detail": 'translated when "auto"; "low"/"high" dropped (a hint)',
  "messages[] assistant":
    "translated: text to `text` blocks, `tool_calls` to `toolUse` blocks with the arguments parsed (not a JSON object: refused); `refusal` refused",
  "messages[] tool":
    "translated: a user message of `toolResult` blocks (`tool_call_id` to `toolUseId`); consecutive same-role messages merge, as Converse requires alternation",
  "messages[] function": "refused: the deprecated function role (use tools)",
  "messages[].name": "dropped (a hint): Converse has no per-message author name",
  max_completion_tokens: "translated: `inferenceConfig.maxTokens`",
  max_tokens: "translated: `inferenceConfig.maxTokens` (`max_completion_tokens` wins)",
  temperature: "translated: `inferenceConfig.temperature`",
  top_p: "translated: `inferenceConfig.topP`",
  stop: "translated: `inferenceConfig.stopSequences`",
  stream: "translated: ConverseStream instead of Converse",
  stream_options:
    "accepted, not sent: usage always arrives in ConverseStream's metadata; the gateway emits OpenAI's usage chunk when `include_usage` is set",
  tools:
    "translated: function tools to `toolConfig.tools[].toolSpec` (`parameters` as `inputSchema.json`); `strict` dropped (a hint); other tool types refused",
  tool_choice:
    '"auto" to Converse\'s default, "required" to `{any: {}}`, a named function to `{tool: {name}}`; "none" sends no tools (refused when the conversation already holds tool calls, which need them declared)',
  parallel_tool_calls: "accepted when true; false dropped (a hint: Converse has no switch for it)",
  user: "translated: `requestMetadata.user` (for Bedrock's invocation logs)",
  safety_identifier: "dropped (a hint): Converse has no safety identifier",
  response_format:
    '"text" accepted; `json_schema` and `json_object` refused (Converse has no structured-output mode)',
  n: "accepted when 1; more refused (Converse returns one choice)",
  logprobs: "accepted when false; true refused",
  top_logprobs: "accepted when 0; more refused",
  logit_bias: "accepted when empty; otherwise refused",
  seed: "refused: Converse has no seed",
  presence_penalty: "accepted when 0; otherwise refused",
  frequency_penalty: "accepted when 0; otherwise refused",
  modalities: 'accepted when ["text"]; audio refused',
  audio: "refused: Converse produces no audio",
  prediction: "refused: no predicted outputs",
  web_search_options: "refused: no web search",
  reasoning_effort:
    '"minimal", "low", "medium", "high" to Claude\'s extended thinking (`additionalModelRequestFields.thinking`, budgets 1,024 / 2,048 / 8,192 / 24,576 tokens); "none" not sent; other values refused',
  verbosity: 'accepted when "medium"; other values refused',
  metadata: "accepted when empty; otherwise dropped (a hint)",
  store: "accepted when false; true dropped (a hint)",
  service_tier:
    '"default", "flex" and "priority" to Converse\'s `serviceTier`; "auto" not sent; others dropped (a hint)',
  prompt_cache_key: "accepted, not sent: a cache-routing hint",
  prompt_cache_retention: 'accepted when "in-memory"; "24h" dropped (a hint)',
  functions: "refused: deprecated (use tools)",
  function_call: "refused: deprecated (use tool_choice)",
};

/** A Responses API request served by a model reached through chat completions (translate/responses-chat.ts). */
export const RESPONSES_TO_CHAT_FIELDS: Record<string, string> = {
  model: "translated: replaced by the serving candidate's model",
  instructions: "translated: a leading system message",
  input:
    "translated: a string to a user message; `message` items (user, assistant, system, developer) to messages with `input_text`/`output_text` as text, `input_image` URLs as `image_url` parts, `input_file` data as `file` parts; `function_call` items to an assistant message's `tool_calls` (consecutive ones together), `function_call_output` to tool messages",
  "input[] reasoning":
    "dropped (a hint): OpenAI's own, often encrypted, reasoning that no other model can read",
  "input[] item_reference / built-in tool items": "refused: stored items and OpenAI's built-in tools",
  "input[] input_image.file_id / input_file.file_id / file_url": "refused: OpenAI's stored files",
  max_output_tokens: "translated: `max_completion_tokens`",
  temperature: "translated: `temperature` (then as the model's table says)",
  top_p: "translated: `top_p` (then as the model's table says)",
  tools:
    "translated: function tools to chat's `{type: function, function: {…}}`; built-in tools (web search, file search, computer use, code interpreter, MCP, custom) refused",
  tool_choice: "translated: auto, none, required, or a named function",
  parallel_tool_calls: "translated: `parallel_tool_calls`",
  text: "translated: `format` json_schema / json_object to `response_format`, `verbosity` to `verbosity`",
  reasoning:
    "translated: `effort` to `reasoning_effort`; `summary` dropped (a hint: no reasoning summary comes back)",
  stream: "translated: `stream`, with chat's usage chunk asked for (the Response's usage)",
  stream_options: "accepted, not sent",
  store: "accepted when false; true dropped (a hint: only OpenAI stores responses)",
  include: "accepted when empty; otherwise dropped (a hint: the extra output it asks for is OpenAI's)",
  previous_response_id: "refused: stored responses are OpenAI's; send the whole conversation as `input`",
  conversation: "refused: stored conversations are OpenAI's",
  prompt: "refused: stored prompts are OpenAI's",
  background: "accepted when false; true refused",
  max_tool_calls: "refused: chat completions have no tool-call limit",
  truncation: 'accepted when "disabled"; "auto" refused',
  top_logprobs: "accepted when 0; more refused",
  metadata: "translated: `metadata` (then as the model's table says)",
  user: "translated: `user`",
  safety_identifier: "translated: `safety_identifier`",
  prompt_cache_key: "translated: `prompt_cache_key`",
  service_tier: "translated: `service_tier` (then as the model's table says)",
};

/** Top-level request fields a table names: the rest of a body is refused as unknown. */
export function knownFields(table: Record<string, string>): string[] {
  return Object.keys(table).filter((k) => /^[a-z_]+$/.test(k));
}

/** docs/translation.md: the three tables as markdown, for the README. */
export function translationTablesMarkdown(): string {
  const table = (rows: Record<string, string>) =>
    [
      "| Field | What happens |",
      "| --- | --- |",
      ...Object.entries(rows).map(([f, what]) => `| \`${f}\` | ${what.replace(/\|/g, "\\|")} |`),
    ].join("\n");
  return [
    "### OpenAI Chat Completions request served by an Anthropic model",
    "",
    table(OPENAI_TO_ANTHROPIC_FIELDS),
    "",
    "### Anthropic Messages request served by an OpenAI(-compatible) model",
    "",
    table(ANTHROPIC_TO_OPENAI_FIELDS),
    "",
    "### Responses API request served by a model reached through chat completions",
    "",
    "An Anthropic model, Bedrock (and any provider reached through OpenAI chat) serves a Responses request translated",
    "to OpenAI chat by this table, then by that model's table; the answer comes back as a Response, and a stream as",
    "Responses' typed events. OpenAI and Azure OpenAI candidates get the request whole.",
    "",
    table(RESPONSES_TO_CHAT_FIELDS),
    "",
    "### OpenAI Chat Completions request served by AWS Bedrock (Converse)",
    "",
    "An Anthropic Messages request to a Bedrock candidate is translated to OpenAI chat first (the table above), then",
    "by this one; the answer comes back the same way.",
    "",
    table(OPENAI_TO_CONVERSE_FIELDS),
    "",
    "### OpenAI Chat Completions request served by a Google Gemini or Vertex AI model",
    "",
    "An Anthropic Messages request to a Gemini or Vertex AI candidate is translated to OpenAI chat first, then by",
    "this table; the answer comes back the same way.",
    "",
    table(OPENAI_TO_GEMINI_FIELDS),
    "",
  ].join("\n");
}
