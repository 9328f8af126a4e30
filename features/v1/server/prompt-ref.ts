import "server-only";
import type { Database } from "@/db";
import {
  compile,
  describeRef,
  findVersion,
  MissingVariablesError,
  templateOf,
  type VersionRef,
} from "@/features/prompts/server";
import type { WireFormat } from "@/lib/gateway/forward/formats";
import type { Json } from "@/lib/gateway/translate/types";
import type { TurnPrompt } from "@/lib/turns/observer";

type Refusal = { status: number; param: string; message: string; code: string };

/**
 * OpenAI's reusable-prompt object on /v1/chat/completions and /v1/responses, answered from the tenant's prompt
 * store: `prompt: {id: name, version?: "N", label?, variables?}`. The version (else the label, else `production`)
 * is compiled with the variables; its messages go before the caller's (a text prompt is one system message; on
 * /v1/responses they become the first `input` items); its config fills `model`, `temperature` and the output
 * ceiling the caller did not set. `prompt` itself is not sent upstream. Undefined when the body has no prompt
 * (or is not in one of those two formats).
 */
export async function applyPromptRef(
  db: Database,
  tenantId: string,
  format: WireFormat,
  body: Json,
): Promise<{ body: Json; prompt: TurnPrompt } | { refused: Refusal } | undefined> {
  // Other formats carry their body as the faithful gateway does (Anthropic's `prompt` is another field).
  if (body.prompt === undefined || (format !== "openai-chat" && format !== "openai-responses"))
    return undefined;
  const ref = body.prompt as Json;
  if (!ref || typeof ref !== "object" || Array.isArray(ref))
    return refuse("prompt", "prompt must be an object: {id, version?, label?, variables?}");
  if (typeof ref.id !== "string" || !ref.id)
    return refuse("prompt.id", "prompt.id must be the prompt's name");
  const asked: VersionRef = {};
  if (ref.version !== undefined && ref.version !== null) {
    const n = typeof ref.version === "number" ? ref.version : Number(ref.version);
    if (!Number.isInteger(n) || n < 1 || (typeof ref.version === "string" && !/^\d+$/.test(ref.version)))
      return refuse("prompt.version", 'prompt.version must be a version number, such as "3"');
    asked.version = n;
  }
  if (ref.label !== undefined && ref.label !== null) {
    if (typeof ref.label !== "string" || !ref.label)
      return refuse("prompt.label", "prompt.label must be a label");
    if (asked.version !== undefined)
      return refuse("prompt.label", "give prompt.version or prompt.label, not both");
    asked.label = ref.label;
  }
  const variables: Record<string, string> = {};
  if (ref.variables !== undefined && ref.variables !== null) {
    if (typeof ref.variables !== "object" || Array.isArray(ref.variables))
      return refuse("prompt.variables", "prompt.variables must be an object of strings");
    for (const [name, value] of Object.entries(ref.variables as Json)) {
      if (typeof value === "string") variables[name] = value;
      else if (typeof value === "number" || typeof value === "boolean") variables[name] = String(value);
      else return refuse(`prompt.variables.${name}`, `prompt.variables.${name} must be a string`);
    }
  }
  const version = await findVersion(db, tenantId, ref.id, asked);
  if (!version)
    return refuse("prompt", `${describeRef(ref.id, asked)} was not found`, 404, "prompt_not_found");
  let compiled: ReturnType<typeof compile>;
  try {
    compiled = compile(templateOf(version), variables);
  } catch (error) {
    if (error instanceof MissingVariablesError)
      return refuse(`prompt.variables.${error.missing[0]}`, error.message, 400, "missing_prompt_variable");
    throw error;
  }
  const messages: Json[] =
    compiled.type === "chat"
      ? compiled.messages.map((m) => ({ role: m.role, content: m.content }))
      : [{ role: "system", content: compiled.text }];
  const out: Json = { ...body };
  delete out.prompt;
  const config = version.config;
  if (out.model === undefined && config.model) out.model = config.model;
  if (out.temperature === undefined && config.temperature !== undefined) out.temperature = config.temperature;
  if (format === "openai-chat") {
    out.messages = [...messages, ...(Array.isArray(body.messages) ? (body.messages as Json[]) : [])];
    if (out.max_tokens === undefined && out.max_completion_tokens === undefined && config.maxTokens)
      out.max_tokens = config.maxTokens;
  } else {
    const input =
      typeof body.input === "string"
        ? [{ role: "user", content: body.input }]
        : Array.isArray(body.input)
          ? (body.input as Json[])
          : [];
    out.input = [...messages, ...input];
    if (out.max_output_tokens === undefined && config.maxTokens) out.max_output_tokens = config.maxTokens;
  }
  return { body: out, prompt: { name: version.name, version: version.version } };
}

const refuse = (param: string, message: string, status = 400, code = "invalid_prompt") => ({
  refused: { status, param, message, code },
});
