/**
 * OpenAI's Responses API <-> OpenAI Chat Completions (docs: RESPONSES_TO_CHAT_FIELDS), so a Responses caller (the
 * OpenAI Agents SDK, Codex CLI) reaches every model chat reaches: an Anthropic model, Bedrock, Gemini. A request
 * body to chat's, a chat completion back to a Response, and chat chunks back to Responses' typed events. Stateless:
 * what needs OpenAI's stored state (`previous_response_id`, `conversation`) is refused by name.
 */
import { knownFields, RESPONSES_TO_CHAT_FIELDS } from "./fields";
import { asArray, asNumber, asObject, asString, FieldRules, invalid, isObject, isUnset, join } from "./rules";
import type { Json, SseEvent, StreamTranslator, TranslateOptions } from "./types";

const CARRIED = [
  "temperature",
  "top_p",
  "parallel_tool_calls",
  "user",
  "safety_identifier",
  "prompt_cache_key",
  "service_tier",
  "metadata",
] as const;

export function responsesToOpenAIChat(body: Json, opts: TranslateOptions): { body: Json; dropped: string[] } {
  const rules = new FieldRules(opts.dropUnsupported, opts.strict);
  rules.onlyKnown(body, knownFields(RESPONSES_TO_CHAT_FIELDS), "");
  refuseStateful(body, rules);
  const messages: Json[] = [];
  if (!isUnset(body.instructions))
    messages.push({ role: "system", content: asString(body.instructions, "instructions") });
  messages.push(...inputMessages(body.input, rules));
  const out: Json = { model: opts.model, messages };
  if (!isUnset(body.max_output_tokens))
    out.max_completion_tokens = asNumber(body.max_output_tokens, "max_output_tokens");
  // Carried as chat has them; the chat translation that follows decides what the model's own API takes.
  for (const field of CARRIED) if (!isUnset(body[field])) out[field] = body[field];
  const tools = isUnset(body.tools) ? [] : asArray(body.tools, "tools");
  const chatTools = tools.flatMap((raw, i) => {
    const tool = asObject(raw, `tools.${i}`);
    if (tool.type !== "function") {
      rules.refuse(
        `tools.${i}`,
        `a ${String(tool.type)} tool is OpenAI's own; other models take function tools`,
      );
      return [];
    }
    rules.onlyKnown(tool, ["type", "name", "description", "parameters", "strict"], `tools.${i}`);
    const fn: Json = { name: asString(tool.name, `tools.${i}.name`) };
    if (!isUnset(tool.description)) fn.description = tool.description;
    if (!isUnset(tool.parameters)) fn.parameters = asObject(tool.parameters, `tools.${i}.parameters`);
    if (!isUnset(tool.strict)) fn.strict = tool.strict;
    return [{ type: "function", function: fn }];
  });
  if (chatTools.length) out.tools = chatTools;
  const choice = body.tool_choice;
  if (typeof choice === "string") out.tool_choice = choice;
  else if (isObject(choice)) {
    if (choice.type === "function")
      out.tool_choice = { type: "function", function: { name: asString(choice.name, "tool_choice.name") } };
    else rules.refuse("tool_choice", "only auto, none, required or a named function can be translated");
  }
  if (!isUnset(body.text)) Object.assign(out, textFormat(asObject(body.text, "text"), rules));
  if (!isUnset(body.reasoning)) {
    const reasoning = asObject(body.reasoning, "reasoning");
    rules.onlyKnown(reasoning, ["effort", "summary", "generate_summary"], "reasoning");
    if (!isUnset(reasoning.effort)) out.reasoning_effort = reasoning.effort;
    for (const field of ["summary", "generate_summary"])
      if (!isUnset(reasoning[field]))
        rules.hint(`reasoning.${field}`, "chat completions return no reasoning summary");
  }
  if (body.stream === true) {
    out.stream = true;
    // The Response's usage comes from chat's usage chunk, which only comes when asked for.
    out.stream_options = { include_usage: true };
  }
  return { body: out, dropped: rules.dropped };
}

function refuseStateful(body: Json, rules: FieldRules) {
  const only = (field: string, harmless: (v: unknown) => boolean, reason: string) => {
    if (!isUnset(body[field]) && !harmless(body[field])) rules.refuse(field, reason);
  };
  only(
    "previous_response_id",
    () => false,
    "stored responses are OpenAI's; send the whole conversation as input",
  );
  only(
    "conversation",
    () => false,
    "stored conversations are OpenAI's; send the whole conversation as input",
  );
  only("prompt", () => false, "stored prompts are OpenAI's");
  only("background", (v) => v === false, "background responses are OpenAI's");
  only("max_tool_calls", () => false, "not translated: chat completions have no tool-call limit");
  only("truncation", (v) => v === "disabled", "only OpenAI truncates a conversation for you");
  only("top_logprobs", (v) => v === 0, "chat completions of other models return no log probabilities");
  const hint = (field: string, harmless: (v: unknown) => boolean, reason: string) => {
    if (!isUnset(body[field]) && !harmless(body[field])) rules.hint(field, reason);
  };
  hint("store", (v) => v === false, "only OpenAI stores responses");
  hint("include", (v) => Array.isArray(v) && v.length === 0, "the extra output it asks for is OpenAI's");
  hint("stream_options", () => true, "Responses' stream options change no answer");
}

function textFormat(text: Json, rules: FieldRules): Json {
  rules.onlyKnown(text, ["format", "verbosity"], "text");
  const out: Json = {};
  if (!isUnset(text.verbosity)) out.verbosity = text.verbosity;
  if (isUnset(text.format)) return out;
  const format = asObject(text.format, "text.format");
  if (format.type === "text") return out;
  if (format.type === "json_object") return { ...out, response_format: { type: "json_object" } };
  if (format.type === "json_schema") {
    rules.onlyKnown(format, ["type", "name", "schema", "strict", "description"], "text.format");
    const schema: Json = {
      name: asString(format.name, "text.format.name"),
      schema: asObject(format.schema, "text.format.schema"),
    };
    if (!isUnset(format.strict)) schema.strict = format.strict;
    if (!isUnset(format.description)) schema.description = format.description;
    return { ...out, response_format: { type: "json_schema", json_schema: schema } };
  }
  return invalid("text.format.type", "unknown format");
}

/** Responses' `input` (a string, or items) as chat messages; consecutive function calls share one assistant message. */
function inputMessages(raw: unknown, rules: FieldRules): Json[] {
  if (typeof raw === "string") return [{ role: "user", content: raw }];
  const messages: Json[] = [];
  for (const [i, value] of asArray(raw, "input").entries()) {
    const path = `input.${i}`;
    const item = asObject(value, path);
    const type = item.type ?? (isUnset(item.role) ? undefined : "message");
    if (type === "message") {
      rules.onlyKnown(item, ["type", "role", "content", "id", "status"], path);
      const role = asString(item.role, `${path}.role`);
      if (!["user", "assistant", "system", "developer"].includes(role))
        invalid(`${path}.role`, "unknown role");
      messages.push({ role, content: messageContent(item.content, `${path}.content`, role, rules) });
    } else if (type === "function_call") {
      rules.onlyKnown(item, ["type", "call_id", "name", "arguments", "id", "status"], path);
      const call = {
        id: asString(item.call_id, `${path}.call_id`),
        type: "function",
        function: {
          name: asString(item.name, `${path}.name`),
          arguments: asString(item.arguments, `${path}.arguments`),
        },
      };
      const last = messages.at(-1);
      if (last?.role === "assistant" && Array.isArray(last.tool_calls))
        (last.tool_calls as Json[]).push(call);
      else messages.push({ role: "assistant", content: null, tool_calls: [call] });
    } else if (type === "function_call_output") {
      rules.onlyKnown(item, ["type", "call_id", "output", "id", "status"], path);
      const output = item.output;
      const content =
        typeof output === "string"
          ? output
          : asArray(output, `${path}.output`).map((part, j) => {
              const p = asObject(part, `${path}.output.${j}`);
              if (p.type !== "input_text")
                invalid(`${path}.output.${j}`, "only text tool outputs can be translated");
              return { type: "text", text: asString(p.text, `${path}.output.${j}.text`) };
            });
      messages.push({ role: "tool", tool_call_id: asString(item.call_id, `${path}.call_id`), content });
    } else if (type === "reasoning") {
      // OpenAI's own (often encrypted) reasoning from an earlier turn: no other model can read it.
      rules.hint(path, "reasoning items are OpenAI's own; other models cannot read them");
    } else {
      rules.refuse(path, `${String(type)} items are OpenAI's own (stored items, built-in tools)`);
    }
  }
  return messages;
}

function messageContent(raw: unknown, path: string, role: string, rules: FieldRules): unknown {
  if (typeof raw === "string") return raw;
  const parts = asArray(raw, path).flatMap((value, j): Json[] => {
    const at = join(path, j);
    const part = asObject(value, at);
    switch (part.type) {
      case "input_text":
      case "output_text":
        rules.onlyKnown(part, ["type", "text", "annotations", "logprobs"], at);
        return [{ type: "text", text: asString(part.text, `${at}.text`) }];
      case "refusal":
        return [{ type: "text", text: asString(part.refusal, `${at}.refusal`) }];
      case "input_image": {
        rules.onlyKnown(part, ["type", "image_url", "detail", "file_id"], at);
        if (!isUnset(part.file_id)) {
          rules.refuse(at, "file ids are OpenAI's stored files");
          return [];
        }
        const image: Json = { url: asString(part.image_url, `${at}.image_url`) };
        if (!isUnset(part.detail)) image.detail = part.detail;
        return [{ type: "image_url", image_url: image }];
      }
      case "input_file": {
        rules.onlyKnown(part, ["type", "file_data", "filename", "file_id", "file_url"], at);
        if (isUnset(part.file_data)) {
          rules.refuse(at, "only file data can be translated (not file ids or URLs)");
          return [];
        }
        const file: Json = { file_data: part.file_data };
        if (!isUnset(part.filename)) file.filename = part.filename;
        return [{ type: "file", file }];
      }
      default:
        rules.refuse(at, "not translated (audio and other parts are OpenAI's)");
        return [];
    }
  });
  // An assistant message's content is text only in chat.
  if (role === "assistant" || role === "system" || role === "developer")
    return parts.map((p) => (p.type === "text" ? p.text : "")).join("");
  return parts;
}

let sequence = 0;
const suffix = () => `${Date.now().toString(36)}${(sequence++).toString(36).padStart(4, "0")}`;

/** The fields of the request a Response echoes, as OpenAI's does. */
function echo(request: Json): Json {
  return {
    instructions: request.instructions ?? null,
    max_output_tokens: request.max_output_tokens ?? null,
    parallel_tool_calls: request.parallel_tool_calls ?? true,
    previous_response_id: null,
    reasoning: request.reasoning ?? { effort: null, summary: null },
    store: false,
    temperature: request.temperature ?? 1,
    text: request.text ?? { format: { type: "text" } },
    tool_choice: request.tool_choice ?? "auto",
    tools: request.tools ?? [],
    top_p: request.top_p ?? 1,
    truncation: "disabled",
    metadata: request.metadata ?? {},
    user: request.user ?? null,
  };
}

function responsesUsage(raw: unknown): Json | null {
  if (!isObject(raw)) return null;
  const n = (v: unknown) => (typeof v === "number" ? v : 0);
  const details = isObject(raw.prompt_tokens_details) ? raw.prompt_tokens_details : {};
  const out = isObject(raw.completion_tokens_details) ? raw.completion_tokens_details : {};
  return {
    input_tokens: n(raw.prompt_tokens),
    input_tokens_details: { cached_tokens: n(details.cached_tokens) },
    output_tokens: n(raw.completion_tokens),
    output_tokens_details: { reasoning_tokens: n(out.reasoning_tokens) },
    total_tokens: n(raw.total_tokens) || n(raw.prompt_tokens) + n(raw.completion_tokens),
  };
}

/** How a chat finish reason ends a Response: completed, or incomplete and why. */
function ending(finish: unknown): { status: string; incomplete_details: Json | null } {
  if (finish === "length")
    return { status: "incomplete", incomplete_details: { reason: "max_output_tokens" } };
  if (finish === "content_filter")
    return { status: "incomplete", incomplete_details: { reason: "content_filter" } };
  return { status: "completed", incomplete_details: null };
}

const messageItem = (id: string, text: string, status: string): Json => ({
  type: "message",
  id,
  status,
  role: "assistant",
  content: [{ type: "output_text", text, annotations: [], logprobs: [] }],
});

/** A whole chat completion as a Response. */
export function openAIChatToResponse(completion: Json, request: Json, model: string): Json {
  const choice =
    Array.isArray(completion.choices) && isObject(completion.choices[0]) ? completion.choices[0] : {};
  const message = isObject(choice.message) ? choice.message : {};
  const output: Json[] = [];
  const id = suffix();
  if (typeof message.content === "string" && message.content)
    output.push(messageItem(`msg_${id}`, message.content, "completed"));
  for (const [i, call] of (Array.isArray(message.tool_calls)
    ? (message.tool_calls as Json[])
    : []
  ).entries()) {
    const fn = isObject(call.function) ? call.function : {};
    output.push({
      type: "function_call",
      id: `fc_${id}_${i}`,
      call_id: String(call.id ?? ""),
      name: String(fn.name ?? ""),
      arguments: String(fn.arguments ?? "{}"),
      status: "completed",
    });
  }
  return {
    id: `resp_${id}`,
    object: "response",
    created_at: typeof completion.created === "number" ? completion.created : Math.floor(Date.now() / 1000),
    model: typeof completion.model === "string" ? completion.model : model,
    ...ending(choice.finish_reason),
    error: null,
    output,
    usage: responsesUsage(completion.usage),
    ...echo(request),
  };
}

/**
 * Chat completion chunks as Responses' typed events: response.created and in_progress, an output item per message
 * and function call (added, deltas, done), then response.completed (or incomplete) with the usage, once the chat
 * stream has ended.
 */
export function openAIChatStreamToResponses(request: Json, model: string): StreamTranslator {
  const id = suffix();
  const created = Math.floor(Date.now() / 1000);
  let seq = 0;
  let started = false;
  let finished = false;
  let finish: unknown = null;
  let usage: Json | null = null;
  let served = model;
  const output: Json[] = [];
  /** The open message item (its index in output and text so far), if text is streaming. */
  let text: { index: number; id: string; text: string } | null = null;
  /** Chat tool-call index -> the function call item's index in output. */
  const calls = new Map<number, number>();
  const open = new Set<number>();

  const event = (type: string, data: Json): SseEvent => ({
    event: type,
    data: JSON.stringify({ type, sequence_number: seq++, ...data }),
  });
  const response = (status: string, extra: Json = {}): Json => ({
    id: `resp_${id}`,
    object: "response",
    created_at: created,
    model: served,
    status,
    error: null,
    incomplete_details: null,
    output,
    usage: null,
    ...echo(request),
    ...extra,
  });
  const start = (): SseEvent[] => {
    if (started) return [];
    started = true;
    return [
      event("response.created", { response: response("in_progress", { output: [] }) }),
      event("response.in_progress", { response: response("in_progress", { output: [] }) }),
    ];
  };
  const closeText = (): SseEvent[] => {
    if (!text) return [];
    const { index, id: itemId } = text;
    const item = messageItem(itemId, text.text, "completed");
    output[index] = item;
    text = null;
    const part = (item.content as Json[])[0]!;
    return [
      event("response.output_text.done", {
        item_id: itemId,
        output_index: index,
        content_index: 0,
        text: part.text,
        logprobs: [],
      }),
      event("response.content_part.done", { item_id: itemId, output_index: index, content_index: 0, part }),
      event("response.output_item.done", { output_index: index, item }),
    ];
  };
  const closeCalls = (): SseEvent[] =>
    [...open].flatMap((index) => {
      open.delete(index);
      const item: Json = { ...output[index]!, status: "completed" };
      output[index] = item;
      return [
        event("response.function_call_arguments.done", {
          item_id: item.id,
          output_index: index,
          name: item.name,
          arguments: item.arguments,
        }),
        event("response.output_item.done", { output_index: index, item }),
      ];
    });
  const complete = (): SseEvent[] => {
    if (finished) return [];
    finished = true;
    const out = [...start(), ...closeText(), ...closeCalls()];
    const end = ending(finish);
    const type = end.status === "completed" ? "response.completed" : "response.incomplete";
    out.push(event(type, { response: response(end.status, { ...end, usage }) }));
    return out;
  };

  return {
    push(e: SseEvent): SseEvent[] {
      if (e.data.trim() === "[DONE]") return complete();
      let chunk: Json;
      try {
        chunk = JSON.parse(e.data) as Json;
      } catch {
        return [];
      }
      if (finished) return [];
      if (typeof chunk.model === "string" && chunk.model) served = chunk.model;
      const out = start();
      if (isObject(chunk.usage)) usage = responsesUsage(chunk.usage);
      const choice =
        Array.isArray(chunk.choices) && isObject(chunk.choices[0]) ? chunk.choices[0] : undefined;
      if (!choice) return out;
      const delta = isObject(choice.delta) ? choice.delta : {};
      if (typeof delta.content === "string" && delta.content) {
        if (!text) {
          const index = output.length;
          const itemId = `msg_${id}_${index}`;
          const item = { type: "message", id: itemId, status: "in_progress", role: "assistant", content: [] };
          output.push(item);
          text = { index, id: itemId, text: "" };
          out.push(
            event("response.output_item.added", { output_index: index, item }),
            event("response.content_part.added", {
              item_id: itemId,
              output_index: index,
              content_index: 0,
              part: { type: "output_text", text: "", annotations: [], logprobs: [] },
            }),
          );
        }
        text.text += delta.content;
        out.push(
          event("response.output_text.delta", {
            item_id: text.id,
            output_index: text.index,
            content_index: 0,
            delta: delta.content,
            logprobs: [],
          }),
        );
      }
      for (const raw of Array.isArray(delta.tool_calls) ? (delta.tool_calls as Json[]) : []) {
        const at = typeof raw.index === "number" ? raw.index : 0;
        const fn = isObject(raw.function) ? raw.function : {};
        let index = calls.get(at);
        if (index === undefined) {
          out.push(...closeText());
          index = output.length;
          calls.set(at, index);
          open.add(index);
          const item = {
            type: "function_call",
            id: `fc_${id}_${index}`,
            call_id: String(raw.id ?? ""),
            name: String(fn.name ?? ""),
            arguments: "",
            status: "in_progress",
          };
          output.push(item);
          out.push(event("response.output_item.added", { output_index: index, item }));
        }
        const item = output[index]!;
        if (typeof fn.arguments === "string" && fn.arguments) {
          item.arguments = String(item.arguments) + fn.arguments;
          out.push(
            event("response.function_call_arguments.delta", {
              item_id: item.id,
              output_index: index,
              delta: fn.arguments,
            }),
          );
        }
      }
      if (choice.finish_reason) finish = choice.finish_reason;
      return out;
    },
    end: () => complete(),
  };
}
