/** An OpenAI Chat Completions request body -> an Anthropic Messages request body (docs: OPENAI_TO_ANTHROPIC_FIELDS). */
import { knownFields, OPENAI_TO_ANTHROPIC_FIELDS } from "./fields";
import { openAIMessagesToAnthropic } from "./openai-messages";
import { asArray, asNumber, asObject, asString, FieldRules, invalid, isObject, isUnset } from "./rules";
import type { Json, Translated, TranslateOptions } from "./types";

/** Anthropic requires `max_tokens`; OpenAI callers often leave it out. */
export const DEFAULT_MAX_TOKENS = 4096;
/** The forced tool a `json_object` response format becomes. */
export const JSON_OBJECT_TOOL = "json_object";

export function openAIChatToAnthropic(body: Json, opts: TranslateOptions): Translated {
  const rules = new FieldRules(opts.dropUnsupported, opts.strict);
  rules.onlyKnown(body, knownFields(OPENAI_TO_ANTHROPIC_FIELDS), "");
  refuseWithoutEquivalent(body, rules);
  const { system, messages } = openAIMessagesToAnthropic(body.messages, rules);
  const out: Json = { model: opts.model };
  if (system !== undefined) out.system = system;
  out.messages = messages;
  out.max_tokens = maxTokens(body);
  Object.assign(
    out,
    sampling(body, rules),
    reasoning(body, rules),
    metadata(body, rules),
    serviceTier(body, rules),
  );
  const tools = translateTools(body, rules);
  let toolChoice = translateToolChoice(body, rules, tools.length > 0);
  const structured = structuredOutput(body, rules, tools, toolChoice);
  if (structured) {
    tools.push(structured.tool);
    toolChoice = { type: "tool", name: structured.tool.name };
  }
  if (tools.length) out.tools = tools;
  if (toolChoice) out.tool_choice = toolChoice;
  if (!isUnset(body.stream)) out.stream = body.stream === true;
  const translated: Translated = { body: out, dropped: rules.dropped };
  if (structured) translated.structuredTool = structured.tool.name as string;
  return translated;
}

/** Fields accepted only at the value that changes nothing; any other value asks for what Anthropic lacks. */
function refuseWithoutEquivalent(body: Json, rules: FieldRules) {
  const only = (field: string, harmless: (v: unknown) => boolean, reason: string) => {
    if (!isUnset(body[field]) && !harmless(body[field])) rules.refuse(field, reason);
  };
  const never = () => false;
  const emptyObject = (v: unknown) => isObject(v) && !Object.keys(v).length;
  only("n", (v) => v === 1, "Anthropic returns one choice");
  only("logprobs", (v) => v === false, "Anthropic returns no log probabilities");
  only("top_logprobs", (v) => v === 0, "Anthropic returns no log probabilities");
  only("logit_bias", emptyObject, "Anthropic has no logit bias");
  only("seed", never, "Anthropic has no seed");
  only("presence_penalty", (v) => v === 0, "Anthropic has no presence penalty");
  only("frequency_penalty", (v) => v === 0, "Anthropic has no frequency penalty");
  only(
    "modalities",
    (v) => Array.isArray(v) && v.every((m) => m === "text"),
    "Anthropic answers in text only",
  );
  only("audio", never, "Anthropic produces no audio");
  only("prediction", never, "Anthropic has no predicted outputs");
  only("web_search_options", never, "web search is an Anthropic server tool the caller did not ask for");
  only("verbosity", (v) => v === "medium", "Anthropic has no verbosity control");
  only("functions", never, "deprecated; use tools");
  only("function_call", never, "deprecated; use tool_choice");
  // Hints: they ask for no different answer, so they are left out (and listed) unless the alias is strict.
  const hint = (field: string, harmless: (v: unknown) => boolean, reason: string) => {
    if (!isUnset(body[field]) && !harmless(body[field])) rules.hint(field, reason);
  };
  hint("metadata", emptyObject, "Anthropic's metadata holds only a user id");
  hint("store", (v) => v === false, "Anthropic keeps no completions to retrieve");
  hint("prompt_cache_retention", (v) => v === "in-memory", "Anthropic has no extended cache retention");
}

function maxTokens(body: Json): number {
  if (!isUnset(body.max_completion_tokens))
    return asNumber(body.max_completion_tokens, "max_completion_tokens");
  if (!isUnset(body.max_tokens)) return asNumber(body.max_tokens, "max_tokens");
  return DEFAULT_MAX_TOKENS;
}

/**
 * Anthropic's current API (2026-10-21, the one its SDK speaks) takes no temperature or top_p at all: only the
 * default, 1, asks for nothing it lacks.
 */
function sampling(body: Json, rules: FieldRules): Json {
  const out: Json = {};
  for (const field of ["temperature", "top_p"]) {
    if (!isUnset(body[field]) && asNumber(body[field], field) !== 1)
      rules.refuse(field, "Anthropic's current API has no sampling parameters");
  }
  if (typeof body.stop === "string") out.stop_sequences = [body.stop];
  else if (!isUnset(body.stop)) {
    const stops = asArray(body.stop, "stop").map((s, i) => asString(s, `stop.${i}`));
    if (stops.length) out.stop_sequences = stops;
  }
  return out;
}

const EFFORTS = ["low", "medium", "high", "xhigh"];

/** OpenAI's reasoning effort is Anthropic's `output_config.effort`; "none" is thinking disabled. */
function reasoning(body: Json, rules: FieldRules): Json {
  const effort = body.reasoning_effort;
  if (isUnset(effort)) return {};
  if (effort === "none") return { thinking: { type: "disabled" } };
  if (typeof effort === "string" && EFFORTS.includes(effort)) return { output_config: { effort } };
  rules.refuse("reasoning_effort", `Anthropic's efforts are ${EFFORTS.join(", ")}`);
  return {};
}

function metadata(body: Json, rules: FieldRules): Json {
  const safety = isUnset(body.safety_identifier)
    ? undefined
    : asString(body.safety_identifier, "safety_identifier");
  const user = isUnset(body.user) ? undefined : asString(body.user, "user");
  if (safety !== undefined && user !== undefined && safety !== user) {
    rules.hint("user", "Anthropic takes one user id and safety_identifier already gives it");
  }
  const id = safety ?? user;
  return id === undefined ? {} : { metadata: { user_id: id } };
}

function serviceTier(body: Json, rules: FieldRules): Json {
  if (isUnset(body.service_tier)) return {};
  if (body.service_tier === "auto") return { service_tier: "auto" };
  if (body.service_tier === "default") return { service_tier: "standard_only" };
  rules.hint("service_tier", 'Anthropic offers only "auto" and standard capacity');
  return {};
}

function translateTools(body: Json, rules: FieldRules): Json[] {
  if (isUnset(body.tools)) return [];
  return asArray(body.tools, "tools").flatMap((raw, i) => {
    const tool = asObject(raw, `tools.${i}`);
    if (tool.type !== "function") {
      rules.refuse(`tools.${i}`, "Anthropic takes function tools only");
      return [];
    }
    rules.onlyKnown(tool, ["type", "function"], `tools.${i}`);
    const fn = asObject(tool.function, `tools.${i}.function`);
    rules.onlyKnown(fn, ["name", "description", "parameters", "strict"], `tools.${i}.function`);
    const out: Json = { name: asString(fn.name, `tools.${i}.function.name`) };
    if (!isUnset(fn.description))
      out.description = asString(fn.description, `tools.${i}.function.description`);
    out.input_schema = isUnset(fn.parameters)
      ? { type: "object", properties: {} }
      : asObject(fn.parameters, `tools.${i}.function.parameters`);
    if (fn.strict === true) out.strict = true;
    return [out];
  });
}

function translateToolChoice(body: Json, rules: FieldRules, hasTools: boolean): Json | undefined {
  const choice = body.tool_choice;
  // parallel_tool_calls: true is Anthropic's default; false means nothing without tools to call.
  const serial = body.parallel_tool_calls === false && hasTools ? { disable_parallel_tool_use: true } : {};
  if (isUnset(choice)) return Object.keys(serial).length ? { type: "auto", ...serial } : undefined;
  if (choice === "auto") return { type: "auto", ...serial };
  if (choice === "required") return { type: "any", ...serial };
  if (choice === "none") return { type: "none" };
  const named = asObject(choice, "tool_choice");
  if (named.type !== "function") {
    rules.refuse("tool_choice", "Anthropic can force one named function, not a set of allowed tools");
    return undefined;
  }
  rules.onlyKnown(named, ["type", "function"], "tool_choice");
  const fn = asObject(named.function, "tool_choice.function");
  rules.onlyKnown(fn, ["name"], "tool_choice.function");
  return { type: "tool", name: asString(fn.name, "tool_choice.function.name"), ...serial };
}

/** `response_format` json_schema / json_object -> a forced tool whose input is the answer (see fields.ts). */
function structuredOutput(
  body: Json,
  rules: FieldRules,
  tools: Json[],
  toolChoice: Json | undefined,
): { tool: Json } | undefined {
  if (isUnset(body.response_format)) return undefined;
  const format = asObject(body.response_format, "response_format");
  if (format.type === "text") {
    rules.onlyKnown(format, ["type"], "response_format");
    return undefined;
  }
  let tool: Json;
  if (format.type === "json_object") {
    rules.onlyKnown(format, ["type"], "response_format");
    tool = {
      name: JSON_OBJECT_TOOL,
      description: "Give your answer as this tool's input: a JSON object.",
      input_schema: { type: "object" },
    };
  } else if (format.type === "json_schema") {
    rules.onlyKnown(format, ["type", "json_schema"], "response_format");
    const spec = asObject(format.json_schema, "response_format.json_schema");
    rules.onlyKnown(spec, ["name", "description", "schema", "strict"], "response_format.json_schema");
    const schema = isUnset(spec.schema)
      ? { type: "object" }
      : asObject(spec.schema, "response_format.json_schema.schema");
    if (schema.type !== "object") {
      rules.refuse("response_format.json_schema.schema", "an Anthropic tool input must be an object");
      return undefined;
    }
    tool = {
      name: asString(spec.name, "response_format.json_schema.name"),
      description: isUnset(spec.description)
        ? "Give your answer as this tool's input."
        : asString(spec.description, "response_format.json_schema.description"),
      input_schema: schema,
    };
    if (spec.strict === true) tool.strict = true;
  } else {
    return invalid("response_format.type", "unknown response format");
  }
  if (tools.length && toolChoice?.type !== "none") {
    rules.refuse(
      "response_format",
      "Anthropic cannot force the answer's schema while the model may call tools",
    );
    return undefined;
  }
  if (tools.some((t) => t.name === tool.name)) {
    rules.refuse("response_format", "a tool already has the response format's name");
    return undefined;
  }
  return { tool };
}
