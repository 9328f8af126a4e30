/** An Anthropic Messages request body -> an OpenAI Chat Completions request body (docs: ANTHROPIC_TO_OPENAI_FIELDS). */
import { anthropicMessagesToOpenAI, anthropicSystemToOpenAI } from "./anthropic-messages";
import { ANTHROPIC_TO_OPENAI_FIELDS, knownFields } from "./fields";
import { asArray, asNumber, asObject, asString, FieldRules, isUnset } from "./rules";
import type { Json, Translated, TranslateOptions } from "./types";

export function anthropicToOpenAIChat(body: Json, opts: TranslateOptions): Translated {
  const rules = new FieldRules(opts.dropUnsupported, opts.strict);
  rules.onlyKnown(body, knownFields(ANTHROPIC_TO_OPENAI_FIELDS), "");
  refuseWithoutEquivalent(body, rules);
  const out: Json = {
    model: opts.model,
    messages: [
      ...anthropicSystemToOpenAI(body.system, rules),
      ...anthropicMessagesToOpenAI(body.messages, rules),
    ],
  };
  if (!isUnset(body.max_tokens))
    out[opts.maxTokensField ?? "max_completion_tokens"] = asNumber(body.max_tokens, "max_tokens");
  if (!isUnset(body.temperature)) out.temperature = asNumber(body.temperature, "temperature");
  if (!isUnset(body.top_p)) out.top_p = asNumber(body.top_p, "top_p");
  if (!isUnset(body.stop_sequences)) {
    const stops = asArray(body.stop_sequences, "stop_sequences").map((s, i) =>
      asString(s, `stop_sequences.${i}`),
    );
    if (stops.length) out.stop = stops;
  }
  if (!isUnset(body.metadata)) {
    const metadata = asObject(body.metadata, "metadata");
    rules.onlyKnown(metadata, ["user_id"], "metadata");
    if (!isUnset(metadata.user_id)) out.user = asString(metadata.user_id, "metadata.user_id");
  }
  if (body.service_tier === "auto") out.service_tier = "auto";
  else if (body.service_tier === "standard_only") out.service_tier = "default";
  const tools = translateTools(body, rules);
  if (tools.length) out.tools = tools;
  Object.assign(out, translateToolChoice(body, rules, tools.length > 0));
  Object.assign(out, outputFormat(body, rules));
  if (body.stream === true) {
    out.stream = true;
    out.stream_options = { include_usage: true };
  } else if (body.stream === false) out.stream = false;
  return { body: out, dropped: rules.dropped };
}

function refuseWithoutEquivalent(body: Json, rules: FieldRules) {
  const only = (field: string, harmless: (v: unknown) => boolean, reason: string) => {
    if (!isUnset(body[field]) && !harmless(body[field])) rules.refuse(field, reason);
  };
  const never = () => false;
  only("top_k", never, "OpenAI has no top_k");
  only(
    "thinking",
    (v) => asObject(v, "thinking").type === "disabled",
    "OpenAI reasoning takes an effort, not a budget",
  );
  if (!isUnset(body.speed) && body.speed !== "standard") rules.hint("speed", "OpenAI has no fast mode");
  only("container", never, "OpenAI has no code-execution container");
  only("mcp_servers", never, "OpenAI chat completions call no MCP servers");
  only("inference_geo", never, "OpenAI chat completions take no inference region");
  only("service_tier", (v) => v === "auto" || v === "standard_only", "unknown service tier");
}

function translateTools(body: Json, rules: FieldRules): Json[] {
  if (isUnset(body.tools)) return [];
  return asArray(body.tools, "tools").flatMap((raw, i) => {
    const tool = asObject(raw, `tools.${i}`);
    if (!isUnset(tool.type) && tool.type !== "custom") {
      rules.refuse(`tools.${i}`, `OpenAI has no ${String(tool.type)} server tool`);
      return [];
    }
    rules.onlyKnown(
      tool,
      ["type", "name", "description", "input_schema", "cache_control", "strict"],
      `tools.${i}`,
    );
    const fn: Json = { name: asString(tool.name, `tools.${i}.name`) };
    if (!isUnset(tool.description)) fn.description = asString(tool.description, `tools.${i}.description`);
    fn.parameters = asObject(tool.input_schema, `tools.${i}.input_schema`);
    if (tool.strict === true) fn.strict = true;
    return [{ type: "function", function: fn }];
  });
}

function translateToolChoice(body: Json, rules: FieldRules, hasTools: boolean): Json {
  if (isUnset(body.tool_choice)) return {};
  const choice = asObject(body.tool_choice, "tool_choice");
  const out: Json = {};
  if (choice.type === "none") {
    rules.onlyKnown(choice, ["type"], "tool_choice");
    return { tool_choice: "none" };
  }
  rules.onlyKnown(choice, ["type", "name", "disable_parallel_tool_use"], "tool_choice");
  if (choice.type === "auto") out.tool_choice = "auto";
  else if (choice.type === "any") out.tool_choice = "required";
  else if (choice.type === "tool")
    out.tool_choice = { type: "function", function: { name: asString(choice.name, "tool_choice.name") } };
  else rules.refuse("tool_choice", "unknown tool choice");
  // OpenAI rejects parallel_tool_calls without tools, where it would mean nothing anyway.
  if (choice.disable_parallel_tool_use === true && hasTools) out.parallel_tool_calls = false;
  return out;
}

const EFFORTS = ["low", "medium", "high", "xhigh"];

/** `output_config`: its format (Anthropic structured outputs) is OpenAI's strict json_schema, its effort the reasoning effort. */
function outputFormat(body: Json, rules: FieldRules): Json {
  if (isUnset(body.output_config)) return {};
  const config = asObject(body.output_config, "output_config");
  rules.onlyKnown(config, ["format", "effort"], "output_config");
  const out: Json = {};
  if (typeof config.effort === "string" && EFFORTS.includes(config.effort))
    out.reasoning_effort = config.effort;
  else if (!isUnset(config.effort))
    rules.refuse("output_config.effort", `OpenAI's efforts are ${EFFORTS.join(", ")}`);
  if (isUnset(config.format)) return out;
  const format = asObject(config.format, "output_config.format");
  rules.onlyKnown(format, ["type", "schema"], "output_config.format");
  if (format.type !== "json_schema") {
    rules.refuse("output_config.format", "unknown output format");
    return out;
  }
  const schema = asObject(format.schema, "output_config.format.schema");
  out.response_format = { type: "json_schema", json_schema: { name: "response", schema, strict: true } };
  return out;
}
