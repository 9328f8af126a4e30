/** OpenAI chat `messages` -> Anthropic `system` + alternating user/assistant `messages`. */
import { asArray, asObject, asString, type FieldRules, invalid, isObject, isUnset } from "./rules";
import type { Json } from "./types";

export type AnthropicMessage = { role: "user" | "assistant"; content: string | Json[] };
export type AnthropicSystem = string | Json[] | undefined;

const IMAGE_TYPES = ["image/jpeg", "image/png", "image/gif", "image/webp"];
const DATA_URL = /^data:([^;,]+);base64,(.*)$/s;

export function openAIMessagesToAnthropic(
  raw: unknown,
  rules: FieldRules,
): { system: AnthropicSystem; messages: AnthropicMessage[] } {
  const list = asArray(raw, "messages");
  const systems: { blocks: Json[]; text?: string }[] = [];
  const messages: AnthropicMessage[] = [];
  let started = false;
  for (const [i, item] of list.entries()) {
    const path = `messages.${i}`;
    const msg = asObject(item, path);
    if (msg.role === "function") {
      rules.refuse(path, "the deprecated function role has no Anthropic equivalent (use tools)");
      continue;
    }
    if (!isUnset(msg.name)) rules.hint(`${path}.name`, "Anthropic has no per-message author name");
    if (msg.role === "system" || msg.role === "developer") {
      rules.onlyKnown(msg, ["role", "content", "name"], path);
      if (started) rules.refuse(path, "Anthropic takes system text only before the conversation");
      else {
        const text = typeof msg.content === "string" ? msg.content : undefined;
        systems.push({ blocks: textBlocks(msg.content, `${path}.content`, rules), text });
      }
      continue;
    }
    started = true;
    if (msg.role === "user") {
      rules.onlyKnown(msg, ["role", "content", "name"], path);
      append(messages, "user", userContent(msg.content, `${path}.content`, rules));
    } else if (msg.role === "assistant" && i === list.length - 1) {
      rules.refuse(path, "Anthropic would continue a final assistant message instead of answering it");
    } else if (msg.role === "assistant") {
      const known = ["role", "content", "name", "tool_calls", "refusal", "audio", "function_call"];
      rules.onlyKnown(msg, known, path);
      append(messages, "assistant", assistantContent(msg, path, rules));
    } else if (msg.role === "tool") {
      rules.onlyKnown(msg, ["role", "content", "tool_call_id"], path);
      const tool_use_id = asString(msg.tool_call_id, `${path}.tool_call_id`);
      const content = textContent(msg.content, `${path}.content`, rules);
      append(messages, "user", [{ type: "tool_result", tool_use_id, content }]);
    } else invalid(`${path}.role`, "unknown role");
  }
  // One string system message stays a string; several keep their order as text blocks.
  const blocks = systems.flatMap((m) => m.blocks);
  const system =
    systems.length === 1 && systems[0]!.text !== undefined
      ? systems[0]!.text
      : blocks.length
        ? blocks
        : undefined;
  return { system, messages };
}

/** Anthropic wants user and assistant to alternate: a message of the same role as the last one joins it. */
function append(messages: AnthropicMessage[], role: AnthropicMessage["role"], content: string | Json[]) {
  if (Array.isArray(content) && !content.length) return; // every part was dropped
  const last = messages.at(-1);
  if (last?.role === role) last.content = [...asBlocks(last.content), ...asBlocks(content)];
  else messages.push({ role, content });
}

const asBlocks = (content: string | Json[]): Json[] =>
  typeof content === "string" ? (content ? [{ type: "text", text: content }] : []) : content;

/** System, developer and tool content: a string or text parts only, as text blocks. */
function textBlocks(content: unknown, path: string, rules: FieldRules): Json[] {
  if (typeof content === "string") return asBlocks(content);
  return asArray(content, path).flatMap((raw, j) => {
    const part = asObject(raw, `${path}.${j}`);
    if (part.type !== "text") {
      rules.refuse(`${path}.${j}`, "only text parts can be translated here");
      return [];
    }
    const block = textBlock(part, `${path}.${j}`, rules);
    return block.text ? [block] : []; // Anthropic refuses empty text blocks
  });
}

/**
 * A text part. `cache_control` is not OpenAI's, but clients that target Anthropic through OpenAI-compatible
 * gateways put it on text parts: it is Anthropic's own prompt-caching marker, so it passes through.
 */
function textBlock(part: Json, path: string, rules: FieldRules): Json {
  rules.onlyKnown(part, ["type", "text", "cache_control"], path);
  const block: Json = { type: "text", text: asString(part.text, `${path}.text`) };
  if (!isUnset(part.cache_control))
    block.cache_control = asObject(part.cache_control, `${path}.cache_control`);
  return block;
}

/** Tool results: a string, or text blocks. */
function textContent(content: unknown, path: string, rules: FieldRules): string | Json[] {
  return typeof content === "string" ? content : textBlocks(content, path, rules);
}

function userContent(content: unknown, path: string, rules: FieldRules): string | Json[] {
  if (typeof content === "string") return content;
  return asArray(content, path).flatMap((raw, j) => {
    const block = userPart(asObject(raw, `${path}.${j}`), `${path}.${j}`, rules);
    return block && !(block.type === "text" && !block.text) ? [block] : []; // Anthropic refuses empty text blocks
  });
}

function userPart(part: Json, path: string, rules: FieldRules): Json | undefined {
  switch (part.type) {
    case "text":
      return textBlock(part, path, rules);
    case "image_url": {
      rules.onlyKnown(part, ["type", "image_url"], path);
      const image = asObject(part.image_url, `${path}.image_url`);
      rules.onlyKnown(image, ["url", "detail"], `${path}.image_url`);
      if (!isUnset(image.detail) && image.detail !== "auto") {
        rules.hint(`${path}.image_url.detail`, "Anthropic has no image resolution control");
      }
      const url = asString(image.url, `${path}.image_url.url`);
      const data = DATA_URL.exec(url);
      if (data) {
        if (IMAGE_TYPES.includes(data[1]!))
          return { type: "image", source: { type: "base64", media_type: data[1], data: data[2] } };
        rules.refuse(path, `Anthropic takes ${IMAGE_TYPES.join(", ")} images`);
        return undefined;
      }
      if (/^https?:\/\//i.test(url)) return { type: "image", source: { type: "url", url } };
      rules.refuse(`${path}.image_url.url`, "only data: (base64) and http(s) image URLs can be translated");
      return undefined;
    }
    case "file": {
      rules.onlyKnown(part, ["type", "file"], path);
      const file = asObject(part.file, `${path}.file`);
      const data = typeof file.file_data === "string" ? DATA_URL.exec(file.file_data) : null;
      if (isUnset(file.file_id) && data?.[1] === "application/pdf") {
        rules.onlyKnown(file, ["file_data", "filename"], `${path}.file`);
        const source = { type: "base64", media_type: "application/pdf", data: data[2] };
        return typeof file.filename === "string"
          ? { type: "document", source, title: file.filename }
          : { type: "document", source };
      }
      rules.refuse(path, "Anthropic takes PDF file data only (no file ids)");
      return undefined;
    }
    default:
      rules.refuse(path, `Anthropic takes no ${String(part.type)} content`);
      return undefined;
  }
}

function assistantContent(msg: Json, path: string, rules: FieldRules): Json[] {
  for (const field of ["refusal", "audio", "function_call"]) {
    if (!isUnset(msg[field])) rules.refuse(`${path}.${field}`, "no Anthropic equivalent in a request");
  }
  const blocks: Json[] = [];
  if (typeof msg.content === "string") blocks.push(...asBlocks(msg.content));
  else if (!isUnset(msg.content)) {
    asArray(msg.content, `${path}.content`).forEach((raw, j) => {
      const part = asObject(raw, `${path}.content.${j}`);
      if (part.type !== "text") {
        rules.refuse(`${path}.content.${j}`, "only text parts can be translated here");
        return;
      }
      const block = textBlock(part, `${path}.content.${j}`, rules);
      if (block.text) blocks.push(block);
    });
  }
  if (!isUnset(msg.tool_calls)) {
    asArray(msg.tool_calls, `${path}.tool_calls`).forEach((raw, k) => {
      const use = toolUse(asObject(raw, `${path}.tool_calls.${k}`), `${path}.tool_calls.${k}`, rules);
      if (use) blocks.push(use);
    });
  }
  return blocks;
}

function toolUse(call: Json, path: string, rules: FieldRules): Json | undefined {
  if (call.type !== "function") {
    rules.refuse(path, "Anthropic takes function tool calls only");
    return undefined;
  }
  rules.onlyKnown(call, ["id", "type", "function"], path);
  const fn = asObject(call.function, `${path}.function`);
  rules.onlyKnown(fn, ["name", "arguments"], `${path}.function`);
  const args = asString(fn.arguments, `${path}.function.arguments`);
  let input: unknown;
  try {
    input = args.trim() === "" ? {} : JSON.parse(args);
  } catch {
    input = undefined;
  }
  if (!isObject(input)) {
    rules.refuse(`${path}.function.arguments`, "Anthropic tool input must be a JSON object");
    return undefined;
  }
  return {
    type: "tool_use",
    id: asString(call.id, `${path}.id`),
    name: asString(fn.name, `${path}.function.name`),
    input,
  };
}
