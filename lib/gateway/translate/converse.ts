/**
 * OpenAI Chat Completions <-> AWS Bedrock's Converse API (docs: OPENAI_TO_CONVERSE_FIELDS): a request body to
 * Converse's, and Converse's answer and stream events back to OpenAI chat. Plain JSON in and out: signing and
 * the binary event stream are lib/gateway/native/bedrock.ts's.
 */
import { knownFields, OPENAI_TO_CONVERSE_FIELDS } from "./fields";
import { asArray, asNumber, asObject, asString, FieldRules, invalid, isObject, isUnset } from "./rules";
import type { Json, TranslateOptions } from "./types";

const IMAGE_FORMATS: Record<string, string> = {
  "image/jpeg": "jpeg",
  "image/png": "png",
  "image/gif": "gif",
  "image/webp": "webp",
};
const DOCUMENT_FORMATS: Record<string, string> = {
  "application/pdf": "pdf",
  "text/csv": "csv",
  "text/plain": "txt",
  "text/markdown": "md",
  "text/html": "html",
};
const DATA_URL = /^data:([^;,]+);base64,(.*)$/s;

export function openAIChatToConverse(body: Json, opts: TranslateOptions): { body: Json; dropped: string[] } {
  const rules = new FieldRules(opts.dropUnsupported, opts.strict);
  rules.onlyKnown(body, knownFields(OPENAI_TO_CONVERSE_FIELDS), "");
  refuseWithoutEquivalent(body, rules);
  const { system, messages } = converseMessages(body.messages, rules);
  const out: Json = {};
  if (system.length) out.system = system;
  out.messages = messages;
  const inference = inferenceConfig(body);
  if (Object.keys(inference).length) out.inferenceConfig = inference;
  const toolConfig = converseTools(body, rules, messages);
  if (toolConfig) out.toolConfig = toolConfig;
  const reasoning = reasoningFields(body, rules);
  if (reasoning) out.additionalModelRequestFields = reasoning;
  if (typeof body.user === "string" && body.user) out.requestMetadata = { user: body.user.slice(0, 256) };
  if (body.service_tier === "flex" || body.service_tier === "priority" || body.service_tier === "default")
    out.serviceTier = { type: body.service_tier === "flex" ? "flex" : body.service_tier };
  return { body: out, dropped: rules.dropped };
}

function refuseWithoutEquivalent(body: Json, rules: FieldRules) {
  const only = (field: string, harmless: (v: unknown) => boolean, reason: string) => {
    if (!isUnset(body[field]) && !harmless(body[field])) rules.refuse(field, reason);
  };
  const never = () => false;
  const emptyObject = (v: unknown) => isObject(v) && !Object.keys(v).length;
  only("n", (v) => v === 1, "Converse returns one choice");
  only("logprobs", (v) => v === false, "Converse returns no log probabilities");
  only("top_logprobs", (v) => v === 0, "Converse returns no log probabilities");
  only("logit_bias", emptyObject, "Converse has no logit bias");
  only("seed", never, "Converse has no seed");
  only("presence_penalty", (v) => v === 0, "Converse has no presence penalty");
  only("frequency_penalty", (v) => v === 0, "Converse has no frequency penalty");
  only("modalities", (v) => Array.isArray(v) && v.every((m) => m === "text"), "Converse answers in text");
  only("audio", never, "Converse produces no audio");
  only("prediction", never, "Converse has no predicted outputs");
  only("web_search_options", never, "Converse has no web search");
  only("verbosity", (v) => v === "medium", "Converse has no verbosity control");
  only("functions", never, "deprecated; use tools");
  only("function_call", never, "deprecated; use tool_choice");
  only(
    "response_format",
    (v) => isObject(v) && v.type === "text",
    "Converse has no structured-output mode (use a tool)",
  );
  const hint = (field: string, harmless: (v: unknown) => boolean, reason: string) => {
    if (!isUnset(body[field]) && !harmless(body[field])) rules.hint(field, reason);
  };
  hint("metadata", emptyObject, "Converse's request metadata is for logs only");
  hint("store", (v) => v === false, "Bedrock keeps no completions to retrieve");
  hint("prompt_cache_retention", (v) => v === "in-memory", "Bedrock has no extended cache retention");
  hint(
    "service_tier",
    (v) => v === "auto" || v === "default" || v === "flex" || v === "priority",
    "Bedrock's tiers are default, flex and priority",
  );
  hint("safety_identifier", () => false, "Converse has no safety identifier");
  hint("parallel_tool_calls", (v) => v === true, "Converse has no switch for parallel tool calls");
}

function inferenceConfig(body: Json): Json {
  const out: Json = {};
  const max = !isUnset(body.max_completion_tokens)
    ? asNumber(body.max_completion_tokens, "max_completion_tokens")
    : !isUnset(body.max_tokens)
      ? asNumber(body.max_tokens, "max_tokens")
      : undefined;
  if (max !== undefined) out.maxTokens = max;
  if (!isUnset(body.temperature)) out.temperature = asNumber(body.temperature, "temperature");
  if (!isUnset(body.top_p)) out.topP = asNumber(body.top_p, "top_p");
  if (!isUnset(body.stop)) {
    const stop = typeof body.stop === "string" ? [body.stop] : asArray(body.stop, "stop");
    out.stopSequences = stop.map((s, i) => asString(s, `stop.${i}`));
  }
  return out;
}

/** `reasoning_effort`: Claude on Bedrock takes extended thinking as an additional model request field. */
function reasoningFields(body: Json, rules: FieldRules): Json | undefined {
  const effort = body.reasoning_effort;
  if (isUnset(effort) || effort === "none") return undefined;
  const budgets: Record<string, number> = { minimal: 1024, low: 2048, medium: 8192, high: 24576 };
  const budget = typeof effort === "string" ? budgets[effort] : undefined;
  if (budget === undefined) {
    rules.refuse("reasoning_effort", "Bedrock's thinking takes minimal, low, medium or high");
    return undefined;
  }
  return { thinking: { type: "enabled", budget_tokens: budget } };
}

type ConverseMessage = { role: "user" | "assistant"; content: Json[] };

function converseMessages(raw: unknown, rules: FieldRules): { system: Json[]; messages: ConverseMessage[] } {
  const list = asArray(raw, "messages");
  const system: Json[] = [];
  const messages: ConverseMessage[] = [];
  let started = false;
  for (const [i, item] of list.entries()) {
    const path = `messages.${i}`;
    const msg = asObject(item, path);
    if (msg.role === "function") {
      rules.refuse(path, "the deprecated function role has no Converse equivalent (use tools)");
      continue;
    }
    if (!isUnset(msg.name)) rules.hint(`${path}.name`, "Converse has no per-message author name");
    if (msg.role === "system" || msg.role === "developer") {
      rules.onlyKnown(msg, ["role", "content", "name"], path);
      if (started) rules.refuse(path, "Converse takes system text only before the conversation");
      else system.push(...texts(msg.content, `${path}.content`, rules).map((text) => ({ text })));
      continue;
    }
    started = true;
    if (msg.role === "user") {
      rules.onlyKnown(msg, ["role", "content", "name"], path);
      append(messages, "user", userContent(msg.content, `${path}.content`, rules));
    } else if (msg.role === "assistant") {
      rules.onlyKnown(msg, ["role", "content", "name", "tool_calls", "refusal"], path);
      if (!isUnset(msg.refusal)) rules.refuse(`${path}.refusal`, "Converse has no refusal content");
      const content: Json[] = [];
      if (typeof msg.content === "string") {
        if (msg.content) content.push({ text: msg.content });
      } else if (!isUnset(msg.content))
        content.push(...texts(msg.content, `${path}.content`, rules).map((text) => ({ text })));
      for (const [j, rawCall] of (isUnset(msg.tool_calls)
        ? []
        : asArray(msg.tool_calls, `${path}.tool_calls`)
      ).entries()) {
        const at = `${path}.tool_calls.${j}`;
        const call = asObject(rawCall, at);
        if (call.type !== "function") invalid(`${at}.type`, "only function tool calls can be translated");
        const fn = asObject(call.function, `${at}.function`);
        let input: unknown;
        try {
          input = JSON.parse(asString(fn.arguments, `${at}.function.arguments`));
        } catch {
          invalid(`${at}.function.arguments`, "not JSON");
        }
        if (!isObject(input))
          invalid(`${at}.function.arguments`, "Converse takes a JSON object as a tool's input");
        content.push({
          toolUse: {
            toolUseId: asString(call.id, `${at}.id`),
            name: asString(fn.name, `${at}.function.name`),
            input,
          },
        });
      }
      append(messages, "assistant", content);
    } else if (msg.role === "tool") {
      rules.onlyKnown(msg, ["role", "content", "tool_call_id"], path);
      const toolUseId = asString(msg.tool_call_id, `${path}.tool_call_id`);
      const content = texts(msg.content, `${path}.content`, rules).map((text) => ({ text }));
      append(messages, "user", [
        { toolResult: { toolUseId, content: content.length ? content : [{ text: "" }] } },
      ]);
    } else invalid(`${path}.role`, "unknown role");
  }
  return { system, messages };
}

/** Converse wants user and assistant to alternate: a message of the same role as the last one joins it. */
function append(messages: ConverseMessage[], role: ConverseMessage["role"], content: Json[]) {
  if (!content.length) return;
  const last = messages.at(-1);
  if (last?.role === role) last.content.push(...content);
  else messages.push({ role, content });
}

/** A string, or text parts (system, assistant, tool content). */
function texts(content: unknown, path: string, rules: FieldRules): string[] {
  if (typeof content === "string") return content ? [content] : [];
  return asArray(content, path).flatMap((raw, j) => {
    const part = asObject(raw, `${path}.${j}`);
    if (part.type !== "text") {
      rules.refuse(`${path}.${j}`, "only text parts can be translated here");
      return [];
    }
    return textPart(part, `${path}.${j}`, rules);
  });
}

/** One text part's text (none when empty: Converse refuses empty text blocks). */
function textPart(part: Json, path: string, rules: FieldRules): string[] {
  rules.onlyKnown(part, ["type", "text", "cache_control"], path);
  if (!isUnset(part.cache_control))
    rules.hint(`${path}.cache_control`, "Converse marks cache points with its own blocks");
  const text = asString(part.text, `${path}.text`);
  return text ? [text] : [];
}

function userContent(content: unknown, path: string, rules: FieldRules): Json[] {
  if (typeof content === "string") return content ? [{ text: content }] : [];
  return asArray(content, path).flatMap((raw, j): Json[] => {
    const at = `${path}.${j}`;
    const part = asObject(raw, at);
    if (part.type === "text") return textPart(part, at, rules).map((text) => ({ text }));
    if (part.type === "image_url") {
      rules.onlyKnown(part, ["type", "image_url"], at);
      const image = asObject(part.image_url, `${at}.image_url`);
      rules.onlyKnown(image, ["url", "detail"], `${at}.image_url`);
      if (!isUnset(image.detail) && image.detail !== "auto")
        rules.hint(`${at}.image_url.detail`, "Converse has no image resolution control");
      const data = DATA_URL.exec(asString(image.url, `${at}.image_url.url`));
      const format = data ? IMAGE_FORMATS[data[1]!] : undefined;
      if (data && format) return [{ image: { format, source: { bytes: data[2] } } }];
      rules.refuse(
        `${at}.image_url.url`,
        "Converse takes images as data: URLs of jpeg, png, gif or webp only",
      );
      return [];
    }
    if (part.type === "file") {
      rules.onlyKnown(part, ["type", "file"], at);
      const file = asObject(part.file, `${at}.file`);
      const data = typeof file.file_data === "string" ? DATA_URL.exec(file.file_data) : null;
      const format = data ? DOCUMENT_FORMATS[data[1]!] : undefined;
      if (isUnset(file.file_id) && data && format) {
        rules.onlyKnown(file, ["file_data", "filename"], `${at}.file`);
        // Converse names a document; its name allows letters, digits, spaces, hyphens, parentheses and brackets.
        const name = (typeof file.filename === "string" ? file.filename.slice(0, 256) : `document-${j}`)
          .replace(/\.[A-Za-z0-9]+$/, "")
          .replace(/[^A-Za-z0-9 ()[\]-]/g, "-")
          .slice(0, 200);
        return [{ document: { format, name: name || `document-${j}`, source: { bytes: data[2] } } }];
      }
      rules.refuse(at, "Converse takes document data (pdf, csv, txt, md, html), not file ids");
      return [];
    }
    rules.refuse(at, "Converse takes text, images and documents (no audio)");
    return [];
  });
}

function converseTools(body: Json, rules: FieldRules, messages: ConverseMessage[]): Json | undefined {
  const tools = isUnset(body.tools) ? [] : asArray(body.tools, "tools");
  const specs = tools.flatMap((raw, i) => {
    const tool = asObject(raw, `tools.${i}`);
    if (tool.type !== "function") {
      rules.refuse(`tools.${i}`, "Converse takes function tools only");
      return [];
    }
    rules.onlyKnown(tool, ["type", "function"], `tools.${i}`);
    const fn = asObject(tool.function, `tools.${i}.function`);
    rules.onlyKnown(fn, ["name", "description", "parameters", "strict"], `tools.${i}.function`);
    const spec: Json = {
      name: asString(fn.name, `tools.${i}.function.name`),
      inputSchema: {
        json: isUnset(fn.parameters)
          ? { type: "object", properties: {} }
          : asObject(fn.parameters, `tools.${i}.function.parameters`),
      },
    };
    if (typeof fn.description === "string" && fn.description) spec.description = fn.description;
    if (fn.strict === true) rules.hint(`tools.${i}.function.strict`, "Converse has no strict schema mode");
    return [{ toolSpec: spec }];
  });
  const choice = body.tool_choice;
  const usesTools = messages.some((m) => m.content.some((c) => c.toolUse || c.toolResult));
  if (choice === "none") {
    // Not offered, not called; but a conversation with tool blocks needs the tools declared.
    if (usesTools) rules.refuse("tool_choice", 'Converse has no "none" for a conversation that used tools');
    return undefined;
  }
  if (!specs.length) {
    if (usesTools) invalid("tools", "Converse needs the tools declared when the conversation has tool calls");
    if (!isUnset(choice) && choice !== "auto") invalid("tool_choice", "set without tools");
    return undefined;
  }
  const out: Json = { tools: specs };
  if (choice === "required") out.toolChoice = { any: {} };
  else if (isObject(choice)) {
    if (choice.type !== "function") {
      rules.refuse("tool_choice", "Converse takes auto, required or one named function");
      return out;
    }
    out.toolChoice = {
      tool: {
        name: asString(asObject(choice.function, "tool_choice.function").name, "tool_choice.function.name"),
      },
    };
  } else if (!isUnset(choice) && choice !== "auto") invalid("tool_choice", "unknown value");
  return out;
}

/** Converse's stop reason as OpenAI's finish reason. */
export function converseFinish(reason: unknown): string {
  if (reason === "tool_use") return "tool_calls";
  if (reason === "max_tokens" || reason === "model_context_window_exceeded") return "length";
  if (reason === "guardrail_intervened" || reason === "content_filtered") return "content_filter";
  return "stop";
}

/**
 * A guardrail or content filter that stopped the answer, as the filter verdicts the gateway records in the audit
 * trail (Azure OpenAI's `content_filter_results` shape, which it already reads).
 */
function filterVerdict(reason: unknown): { content_filter_results?: Json } {
  if (reason === "guardrail_intervened") return { content_filter_results: { guardrail: { filtered: true } } };
  if (reason === "content_filtered")
    return { content_filter_results: { content_filter: { filtered: true } } };
  return {};
}

/** Converse's usage as OpenAI's: prompt tokens include the cache reads and writes, which are named apart. */
export function converseUsage(raw: unknown): Json | undefined {
  if (!isObject(raw)) return undefined;
  const n = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : 0);
  const read = n(raw.cacheReadInputTokens);
  const write = n(raw.cacheWriteInputTokens);
  const prompt = n(raw.inputTokens) + read + write;
  const completion = n(raw.outputTokens);
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: read, cache_write_tokens: write },
  };
}

let sequence = 0;
/** An id for a translated answer: Converse's carry none in the body. */
export const completionId = () => `chatcmpl-bedrock-${Date.now().toString(36)}${(sequence++).toString(36)}`;

/** A whole Converse answer as an OpenAI chat completion. */
export function converseToOpenAIChat(answer: Json, model: string): Json {
  const message = isObject(answer.output) && isObject(answer.output.message) ? answer.output.message : {};
  const blocks = Array.isArray(message.content) ? (message.content as Json[]) : [];
  const text = blocks
    .filter((b) => typeof b.text === "string")
    .map((b) => b.text as string)
    .join("");
  const toolCalls = blocks
    .filter((b) => isObject(b.toolUse))
    .map((b) => {
      const use = b.toolUse as Json;
      return {
        id: String(use.toolUseId ?? ""),
        type: "function",
        function: { name: String(use.name ?? ""), arguments: JSON.stringify(use.input ?? {}) },
      };
    });
  const reply: Json = { role: "assistant", content: text || (toolCalls.length ? null : ""), refusal: null };
  if (toolCalls.length) reply.tool_calls = toolCalls;
  const out: Json = {
    id: completionId(),
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [
      {
        index: 0,
        message: reply,
        finish_reason: converseFinish(answer.stopReason),
        logprobs: null,
        ...filterVerdict(answer.stopReason),
      },
    ],
  };
  const usage = converseUsage(answer.usage);
  if (usage) out.usage = usage;
  return out;
}

/**
 * ConverseStream's events (each `{type, body}` as decoded from AWS's event stream) as OpenAI chat chunks: the
 * role first, text and tool-call deltas, the finish reason at messageStop, the usage at metadata.
 */
export class ConverseStreamToOpenAIChat {
  private readonly id = completionId();
  private readonly created = Math.floor(Date.now() / 1000);
  /** Converse's content block index -> the OpenAI tool call index. */
  private readonly tools = new Map<number, number>();
  private started = false;
  stopped = false;

  constructor(private readonly model: string) {}

  private chunk(delta: Json, finish: string | null = null): Json {
    return {
      id: this.id,
      object: "chat.completion.chunk",
      created: this.created,
      model: this.model,
      choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
    };
  }

  push(type: string, body: Json): Json[] {
    const out: Json[] = [];
    if (!this.started && type !== "metadata") {
      this.started = true;
      out.push(this.chunk({ role: "assistant", content: "" }));
    }
    const index = typeof body.contentBlockIndex === "number" ? body.contentBlockIndex : 0;
    if (type === "contentBlockStart" && isObject(body.start) && isObject(body.start.toolUse)) {
      const use = body.start.toolUse;
      const at = this.tools.size;
      this.tools.set(index, at);
      out.push(
        this.chunk({
          tool_calls: [
            {
              index: at,
              id: String(use.toolUseId ?? ""),
              type: "function",
              function: { name: String(use.name ?? ""), arguments: "" },
            },
          ],
        }),
      );
    } else if (type === "contentBlockDelta" && isObject(body.delta)) {
      const delta = body.delta;
      if (typeof delta.text === "string" && delta.text) out.push(this.chunk({ content: delta.text }));
      else if (isObject(delta.toolUse) && typeof delta.toolUse.input === "string") {
        const at = this.tools.get(index) ?? 0;
        out.push(this.chunk({ tool_calls: [{ index: at, function: { arguments: delta.toolUse.input } }] }));
      }
    } else if (type === "messageStop") {
      this.stopped = true;
      const last = this.chunk({}, converseFinish(body.stopReason));
      Object.assign((last.choices as Json[])[0]!, filterVerdict(body.stopReason));
      out.push(last);
    } else if (type === "metadata") {
      const usage = converseUsage(body.usage);
      if (usage)
        out.push({
          id: this.id,
          object: "chat.completion.chunk",
          created: this.created,
          model: this.model,
          choices: [],
          usage,
        });
    }
    return out;
  }
}
