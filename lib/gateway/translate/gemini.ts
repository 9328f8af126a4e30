/** An OpenAI Chat Completions request body -> a Gemini generateContent request body (docs: OPENAI_TO_GEMINI_FIELDS). */
import { knownFields, OPENAI_TO_GEMINI_FIELDS } from "./fields";
import { asArray, asNumber, asObject, asString, FieldRules, invalid, isObject, isUnset } from "./rules";
import type { Json, Translated, TranslateOptions } from "./types";

type Content = { role: "user" | "model"; parts: Json[] };

const DATA_URL = /^data:([^;,]+);base64,(.*)$/s;
/** The image types Gemini takes, by a URL's extension (a `fileData` part must name its type). */
const IMAGE_EXTENSIONS: Record<string, string> = {
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  webp: "image/webp",
  gif: "image/gif",
  heic: "image/heic",
  heif: "image/heif",
};
const AUDIO_FORMATS: Record<string, string> = { wav: "audio/wav", mp3: "audio/mp3" };

export function openAIChatToGemini(body: Json, opts: TranslateOptions): Translated {
  const rules = new FieldRules(opts.dropUnsupported, opts.strict);
  rules.onlyKnown(body, knownFields(OPENAI_TO_GEMINI_FIELDS), "");
  refuseWithoutEquivalent(body, rules);
  const { system, contents } = geminiContents(body.messages, rules);
  if (!thinksByBudget(opts.model)) signFunctionCalls(contents);
  const out: Json = { contents };
  if (system.length) out.systemInstruction = { parts: system };
  const tools = translateTools(body, rules);
  if (tools.length) out.tools = [{ functionDeclarations: tools }];
  const toolConfig = translateToolChoice(body, rules);
  if (toolConfig) out.toolConfig = { functionCallingConfig: toolConfig };
  const generationConfig: Json = {
    ...sampling(body),
    ...responseFormat(body, rules),
    ...thinking(body, rules, opts.model),
  };
  if (Object.keys(generationConfig).length) out.generationConfig = generationConfig;
  return { body: out, dropped: rules.dropped };
}

/** Fields accepted only at the value that changes nothing; any other value asks for what Gemini lacks. */
function refuseWithoutEquivalent(body: Json, rules: FieldRules) {
  const only = (field: string, harmless: (v: unknown) => boolean, reason: string) => {
    if (!isUnset(body[field]) && !harmless(body[field])) rules.refuse(field, reason);
  };
  const never = () => false;
  const emptyObject = (v: unknown) => isObject(v) && !Object.keys(v).length;
  only("logprobs", (v) => v === false, "Gemini's log probabilities are not translated back");
  only("top_logprobs", (v) => v === 0, "Gemini's log probabilities are not translated back");
  only("logit_bias", emptyObject, "Gemini has no logit bias");
  only(
    "modalities",
    (v) => Array.isArray(v) && v.every((m) => m === "text"),
    "the gateway translates Gemini's text answers only",
  );
  only("audio", never, "the gateway translates no Gemini audio output");
  only("prediction", never, "Gemini has no predicted outputs");
  only("web_search_options", never, "Google Search grounding is a tool the caller did not ask for");
  only("verbosity", (v) => v === "medium", "Gemini has no verbosity control");
  only("parallel_tool_calls", (v) => v === true, "Gemini cannot be limited to one call at a time");
  only("functions", never, "deprecated; use tools");
  only("function_call", never, "deprecated; use tool_choice");
  // Hints: they ask for no different answer, so they are left out (and listed) unless the alias is strict.
  const hint = (field: string, harmless: (v: unknown) => boolean, reason: string) => {
    if (!isUnset(body[field]) && !harmless(body[field])) rules.hint(field, reason);
  };
  hint("user", never, "Gemini takes no end-user id");
  hint("safety_identifier", never, "Gemini takes no end-user id");
  hint("metadata", emptyObject, "Gemini keeps no request metadata");
  hint("store", (v) => v === false, "Gemini keeps no completions to retrieve");
  hint("service_tier", (v) => v === "auto" || v === "default", "Gemini offers one capacity tier here");
  hint("prompt_cache_retention", (v) => v === "in-memory", "Gemini caches implicitly");
}

function sampling(body: Json): Json {
  const out: Json = {};
  const number = (from: string, to: string) => {
    if (!isUnset(body[from])) out[to] = asNumber(body[from], from);
  };
  if (!isUnset(body.max_completion_tokens)) number("max_completion_tokens", "maxOutputTokens");
  else number("max_tokens", "maxOutputTokens");
  number("temperature", "temperature");
  number("top_p", "topP");
  number("seed", "seed");
  number("presence_penalty", "presencePenalty");
  number("frequency_penalty", "frequencyPenalty");
  number("n", "candidateCount");
  if (typeof body.stop === "string") out.stopSequences = [body.stop];
  else if (!isUnset(body.stop)) {
    const stops = asArray(body.stop, "stop").map((s, i) => asString(s, `stop.${i}`));
    if (stops.length) out.stopSequences = stops;
  }
  return out;
}

function responseFormat(body: Json, rules: FieldRules): Json {
  if (isUnset(body.response_format)) return {};
  const format = asObject(body.response_format, "response_format");
  if (format.type === "text") {
    rules.onlyKnown(format, ["type"], "response_format");
    return {};
  }
  if (format.type === "json_object") {
    rules.onlyKnown(format, ["type"], "response_format");
    return { responseMimeType: "application/json" };
  }
  if (format.type !== "json_schema") return invalid("response_format.type", "unknown response format");
  rules.onlyKnown(format, ["type", "json_schema"], "response_format");
  const spec = asObject(format.json_schema, "response_format.json_schema");
  rules.onlyKnown(spec, ["name", "description", "schema", "strict"], "response_format.json_schema");
  asString(spec.name, "response_format.json_schema.name");
  const out: Json = { responseMimeType: "application/json" };
  if (!isUnset(spec.schema))
    out.responseJsonSchema = asObject(spec.schema, "response_format.json_schema.schema");
  return out;
}

/** Gemini 1.x and 2.x models (thinking by a token budget, no thought signatures required). */
const thinksByBudget = (model: string) => /(^|\/)gemini-(1|2)\./.test(model);

/**
 * Gemini 3 refuses a history whose function calls lack the thought signature it sent with them; an OpenAI
 * caller's tool_calls cannot carry one, so each model turn's first call gets the placeholder Google documents
 * for histories that did not come from Gemini.
 */
export const SKIP_THOUGHT_SIGNATURE = "skip_thought_signature_validator";
function signFunctionCalls(contents: Content[]) {
  for (const turn of contents) {
    if (turn.role !== "model") continue;
    const first = turn.parts.find((p) => p.functionCall !== undefined);
    if (first && first.thoughtSignature === undefined) first.thoughtSignature = SKIP_THOUGHT_SIGNATURE;
  }
}

/** Gemini 2.x thinks within a token budget; later models take a thinking level. */
const BUDGETS: Record<string, number> = { none: 0, minimal: 1024, low: 1024, medium: 8192, high: 24576 };
const LEVELS: Record<string, string> = {
  none: "minimal",
  minimal: "minimal",
  low: "low",
  medium: "medium",
  high: "high",
};

function thinking(body: Json, rules: FieldRules, model: string): Json {
  const effort = body.reasoning_effort;
  if (isUnset(effort)) return {};
  const budgeted = thinksByBudget(model);
  const table: Record<string, number | string> = budgeted ? BUDGETS : LEVELS;
  if (typeof effort !== "string" || !Object.hasOwn(table, effort)) {
    rules.refuse("reasoning_effort", `Gemini's efforts are ${Object.keys(table).join(", ")}`);
    return {};
  }
  return {
    thinkingConfig: budgeted ? { thinkingBudget: table[effort] } : { thinkingLevel: table[effort] },
  };
}

function translateTools(body: Json, rules: FieldRules): Json[] {
  if (isUnset(body.tools)) return [];
  return asArray(body.tools, "tools").flatMap((raw, i) => {
    const tool = asObject(raw, `tools.${i}`);
    if (tool.type !== "function") {
      rules.refuse(`tools.${i}`, "Gemini takes function tools only");
      return [];
    }
    rules.onlyKnown(tool, ["type", "function"], `tools.${i}`);
    const fn = asObject(tool.function, `tools.${i}.function`);
    rules.onlyKnown(fn, ["name", "description", "parameters", "strict"], `tools.${i}.function`);
    const out: Json = { name: asString(fn.name, `tools.${i}.function.name`) };
    if (!isUnset(fn.description))
      out.description = asString(fn.description, `tools.${i}.function.description`);
    if (!isUnset(fn.parameters))
      out.parametersJsonSchema = asObject(fn.parameters, `tools.${i}.function.parameters`);
    if (fn.strict === true) rules.hint(`tools.${i}.function.strict`, "Gemini has no per-tool strict mode");
    return [out];
  });
}

function translateToolChoice(body: Json, rules: FieldRules): Json | undefined {
  const choice = body.tool_choice;
  if (isUnset(choice)) return undefined;
  if (choice === "auto") return { mode: "AUTO" };
  if (choice === "required") return { mode: "ANY" };
  if (choice === "none") return { mode: "NONE" };
  const named = asObject(choice, "tool_choice");
  if (named.type === "function") {
    rules.onlyKnown(named, ["type", "function"], "tool_choice");
    const fn = asObject(named.function, "tool_choice.function");
    rules.onlyKnown(fn, ["name"], "tool_choice.function");
    return { mode: "ANY", allowedFunctionNames: [asString(fn.name, "tool_choice.function.name")] };
  }
  if (named.type === "allowed_tools") {
    rules.onlyKnown(named, ["type", "allowed_tools"], "tool_choice");
    const allowed = asObject(named.allowed_tools, "tool_choice.allowed_tools");
    rules.onlyKnown(allowed, ["mode", "tools"], "tool_choice.allowed_tools");
    if (allowed.mode !== "required") {
      rules.refuse(
        "tool_choice.allowed_tools.mode",
        "Gemini restricts function names only when a call is required",
      );
      return undefined;
    }
    const names = asArray(allowed.tools, "tool_choice.allowed_tools.tools").map((raw, i) => {
      const path = `tool_choice.allowed_tools.tools.${i}`;
      const tool = asObject(raw, path);
      if (tool.type !== "function") return invalid(path, "Gemini takes function tools only");
      return asString(asObject(tool.function, `${path}.function`).name, `${path}.function.name`);
    });
    return { mode: "ANY", allowedFunctionNames: names };
  }
  rules.refuse("tool_choice", "Gemini takes function tools only");
  return undefined;
}

/** OpenAI chat `messages` -> Gemini `systemInstruction` parts and `contents`. */
export function geminiContents(raw: unknown, rules: FieldRules): { system: Json[]; contents: Content[] } {
  const list = asArray(raw, "messages");
  const system: Json[] = [];
  const contents: Content[] = [];
  // Gemini matches a function's result to its call by name: each OpenAI call id's function name.
  const callNames = new Map<string, string>();
  let started = false;
  for (const [i, item] of list.entries()) {
    const path = `messages.${i}`;
    const msg = asObject(item, path);
    if (msg.role === "function") {
      rules.refuse(path, "the deprecated function role has no Gemini equivalent (use tools)");
      continue;
    }
    if (!isUnset(msg.name)) rules.hint(`${path}.name`, "Gemini has no per-message author name");
    if (msg.role === "system" || msg.role === "developer") {
      rules.onlyKnown(msg, ["role", "content", "name"], path);
      if (started) rules.refuse(path, "Gemini takes one system instruction, before the conversation");
      else system.push(...textParts(msg.content, `${path}.content`, rules));
      continue;
    }
    started = true;
    if (msg.role === "user") {
      rules.onlyKnown(msg, ["role", "content", "name"], path);
      append(contents, "user", userParts(msg.content, `${path}.content`, rules));
    } else if (msg.role === "assistant" && i === list.length - 1) {
      rules.refuse(path, "Gemini would continue a final assistant message instead of answering it");
    } else if (msg.role === "assistant") {
      const known = ["role", "content", "name", "tool_calls", "refusal", "audio", "function_call"];
      rules.onlyKnown(msg, known, path);
      append(contents, "model", modelParts(msg, path, rules, callNames));
    } else if (msg.role === "tool") {
      rules.onlyKnown(msg, ["role", "content", "tool_call_id"], path);
      const id = asString(msg.tool_call_id, `${path}.tool_call_id`);
      const name = callNames.get(id);
      if (name === undefined)
        invalid(
          `${path}.tool_call_id`,
          "no earlier assistant tool call has this id (Gemini matches results by name)",
        );
      const text = textParts(msg.content, `${path}.content`, rules)
        .map((p) => p.text)
        .join("");
      append(contents, "user", [{ functionResponse: { name, response: functionResponse(text) } }]);
    } else invalid(`${path}.role`, "unknown role");
  }
  return { system, contents };
}

/** A tool's result: a JSON object as is (Gemini's response is a Struct), any other text as `{output}`. */
function functionResponse(text: string): Json {
  try {
    const value = JSON.parse(text) as unknown;
    if (isObject(value)) return value;
  } catch {
    // not JSON: sent as text
  }
  return { output: text };
}

/** Gemini wants turns to alternate: a message of the same role as the last one joins it. */
function append(contents: Content[], role: Content["role"], parts: Json[]) {
  if (!parts.length) return;
  const last = contents.at(-1);
  if (last?.role === role) last.parts.push(...parts);
  else contents.push({ role, parts });
}

function textParts(content: unknown, path: string, rules: FieldRules): Json[] {
  if (typeof content === "string") return content ? [{ text: content }] : [];
  return asArray(content, path).flatMap((raw, j) => {
    const part = asObject(raw, `${path}.${j}`);
    if (part.type !== "text") {
      rules.refuse(`${path}.${j}`, "only text parts can be translated here");
      return [];
    }
    rules.onlyKnown(part, ["type", "text"], `${path}.${j}`);
    const text = asString(part.text, `${path}.${j}.text`);
    return text ? [{ text }] : [];
  });
}

function userParts(content: unknown, path: string, rules: FieldRules): Json[] {
  if (typeof content === "string") return content ? [{ text: content }] : [];
  return asArray(content, path).flatMap((raw, j) => {
    const part = userPart(asObject(raw, `${path}.${j}`), `${path}.${j}`, rules);
    return part ? [part] : [];
  });
}

function userPart(part: Json, path: string, rules: FieldRules): Json | undefined {
  switch (part.type) {
    case "text": {
      rules.onlyKnown(part, ["type", "text"], path);
      const text = asString(part.text, `${path}.text`);
      return text ? { text } : undefined;
    }
    case "image_url": {
      rules.onlyKnown(part, ["type", "image_url"], path);
      const image = asObject(part.image_url, `${path}.image_url`);
      rules.onlyKnown(image, ["url", "detail"], `${path}.image_url`);
      if (!isUnset(image.detail) && image.detail !== "auto")
        rules.hint(`${path}.image_url.detail`, "Gemini sets media resolution per request, not per image");
      const url = asString(image.url, `${path}.image_url.url`);
      const data = DATA_URL.exec(url);
      if (data) return { inlineData: { mimeType: data[1], data: data[2] } };
      if (/^https?:\/\//i.test(url)) {
        const ext = /\.([a-z0-9]+)$/i.exec(new URL(url).pathname)?.[1]?.toLowerCase();
        const mimeType = ext ? IMAGE_EXTENSIONS[ext] : undefined;
        if (mimeType) return { fileData: { mimeType, fileUri: url } };
        rules.refuse(
          `${path}.image_url.url`,
          "Gemini needs an image URL's type: give a data: URL or a known image extension",
        );
        return undefined;
      }
      rules.refuse(`${path}.image_url.url`, "only data: (base64) and http(s) image URLs can be translated");
      return undefined;
    }
    case "input_audio": {
      rules.onlyKnown(part, ["type", "input_audio"], path);
      const audio = asObject(part.input_audio, `${path}.input_audio`);
      rules.onlyKnown(audio, ["data", "format"], `${path}.input_audio`);
      const mimeType = AUDIO_FORMATS[asString(audio.format, `${path}.input_audio.format`)];
      if (!mimeType) return invalid(`${path}.input_audio.format`, "expected wav or mp3");
      return { inlineData: { mimeType, data: asString(audio.data, `${path}.input_audio.data`) } };
    }
    case "file": {
      rules.onlyKnown(part, ["type", "file"], path);
      const file = asObject(part.file, `${path}.file`);
      const data = typeof file.file_data === "string" ? DATA_URL.exec(file.file_data) : null;
      if (isUnset(file.file_id) && data) {
        rules.onlyKnown(file, ["file_data", "filename"], `${path}.file`);
        return { inlineData: { mimeType: data[1], data: data[2] } };
      }
      rules.refuse(path, "Gemini takes file data only (no OpenAI file ids)");
      return undefined;
    }
    default:
      rules.refuse(path, `Gemini takes no ${String(part.type)} content here`);
      return undefined;
  }
}

function modelParts(msg: Json, path: string, rules: FieldRules, callNames: Map<string, string>): Json[] {
  for (const field of ["refusal", "audio", "function_call"]) {
    if (!isUnset(msg[field])) rules.refuse(`${path}.${field}`, "no Gemini equivalent in a request");
  }
  const parts = isUnset(msg.content) ? [] : textParts(msg.content, `${path}.content`, rules);
  if (isUnset(msg.tool_calls)) return parts;
  asArray(msg.tool_calls, `${path}.tool_calls`).forEach((raw, k) => {
    const at = `${path}.tool_calls.${k}`;
    const call = asObject(raw, at);
    if (call.type !== "function") {
      rules.refuse(at, "Gemini takes function tool calls only");
      return;
    }
    rules.onlyKnown(call, ["id", "type", "function"], at);
    const fn = asObject(call.function, `${at}.function`);
    rules.onlyKnown(fn, ["name", "arguments"], `${at}.function`);
    const name = asString(fn.name, `${at}.function.name`);
    const args = asString(fn.arguments, `${at}.function.arguments`);
    let parsed: unknown;
    try {
      parsed = args.trim() === "" ? {} : JSON.parse(args);
    } catch {
      parsed = undefined;
    }
    if (!isObject(parsed)) {
      rules.refuse(`${at}.function.arguments`, "Gemini function call arguments must be a JSON object");
      return;
    }
    callNames.set(asString(call.id, `${at}.id`), name);
    parts.push({ functionCall: { name, args: parsed } });
  });
  return parts;
}
