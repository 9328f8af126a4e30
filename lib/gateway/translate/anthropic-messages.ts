/** Anthropic `system` + `messages` -> OpenAI chat `messages`. */
import { asArray, asObject, asString, type FieldRules, invalid, isUnset } from "./rules";
import type { Json } from "./types";

/** Carried in the text, since an OpenAI tool message has no error flag. */
export const TOOL_ERROR_PREFIX = "Error: ";

export function anthropicSystemToOpenAI(raw: unknown, rules: FieldRules, path = "system"): Json[] {
  if (isUnset(raw)) return [];
  if (typeof raw === "string") return [{ role: "system", content: raw }];
  const texts = textBlocks(raw, path, rules);
  if (!texts.length) return [];
  return [
    {
      role: "system",
      content: texts.length === 1 ? texts[0]! : texts.map((text) => ({ type: "text", text })),
    },
  ];
}

export function anthropicMessagesToOpenAI(raw: unknown, rules: FieldRules): Json[] {
  const list = asArray(raw, "messages");
  return list.flatMap((item, i) => {
    const path = `messages.${i}`;
    const msg = asObject(item, path);
    rules.onlyKnown(msg, ["role", "content"], path);
    if (msg.role === "user") return userMessages(msg.content, `${path}.content`, rules);
    if (msg.role === "system") return anthropicSystemToOpenAI(msg.content, rules, `${path}.content`);
    if (msg.role === "assistant") {
      if (i === list.length - 1) {
        rules.refuse(path, "OpenAI answers after a final assistant message instead of continuing it");
        return [];
      }
      return assistantMessage(msg.content, `${path}.content`, rules);
    }
    return invalid(`${path}.role`, "unknown role");
  });
}

/** Text blocks only (system, tool results): `cache_control` is a hint OpenAI does not need. */
function textBlocks(raw: unknown, path: string, rules: FieldRules): string[] {
  return asArray(raw, path).flatMap((item, j) => {
    const block = asObject(item, `${path}.${j}`);
    if (block.type !== "text") {
      rules.refuse(`${path}.${j}`, "only text blocks can be translated here");
      return [];
    }
    return [textOf(block, `${path}.${j}`, rules)];
  });
}

function textOf(block: Json, path: string, rules: FieldRules): string {
  rules.onlyKnown(block, ["type", "text", "cache_control", "citations"], path);
  if (!isUnset(block.citations)) rules.refuse(`${path}.citations`, "OpenAI takes no citations");
  return asString(block.text, `${path}.text`);
}

/** Tool results first, as `tool` messages (OpenAI wants them right after the calls), then the rest as one user message. */
function userMessages(content: unknown, path: string, rules: FieldRules): Json[] {
  if (typeof content === "string") return [{ role: "user", content }];
  const tools: Json[] = [];
  const parts: Json[] = [];
  asArray(content, path).forEach((item, j) => {
    const block = asObject(item, `${path}.${j}`);
    const at = `${path}.${j}`;
    switch (block.type) {
      case "tool_result":
        tools.push(toolMessage(block, at, rules));
        return;
      case "text":
        parts.push({ type: "text", text: textOf(block, at, rules) });
        return;
      case "image": {
        const part = imagePart(block, at, rules);
        if (part) parts.push(part);
        return;
      }
      case "document": {
        const part = documentPart(block, at, rules);
        if (part) parts.push(part);
        return;
      }
      default:
        rules.refuse(at, `OpenAI takes no ${String(block.type)} blocks`);
    }
  });
  const user =
    parts.length === 1 && parts[0]!.type === "text"
      ? [{ role: "user", content: parts[0]!.text }]
      : parts.length
        ? [{ role: "user", content: parts }]
        : [];
  return [...tools, ...user];
}

function toolMessage(block: Json, path: string, rules: FieldRules): Json {
  rules.onlyKnown(block, ["type", "tool_use_id", "content", "is_error", "cache_control"], path);
  let text = "";
  if (typeof block.content === "string") text = block.content;
  else if (!isUnset(block.content)) text = textBlocks(block.content, `${path}.content`, rules).join("\n");
  if (block.is_error === true) text = `${TOOL_ERROR_PREFIX}${text}`;
  return { role: "tool", tool_call_id: asString(block.tool_use_id, `${path}.tool_use_id`), content: text };
}

function imagePart(block: Json, path: string, rules: FieldRules): Json | undefined {
  rules.onlyKnown(block, ["type", "source", "cache_control"], path);
  const source = asObject(block.source, `${path}.source`);
  if (source.type === "base64") {
    rules.onlyKnown(source, ["type", "media_type", "data"], `${path}.source`);
    const url = `data:${asString(source.media_type, `${path}.source.media_type`)};base64,${asString(source.data, `${path}.source.data`)}`;
    return { type: "image_url", image_url: { url } };
  }
  if (source.type === "url") {
    rules.onlyKnown(source, ["type", "url"], `${path}.source`);
    return { type: "image_url", image_url: { url: asString(source.url, `${path}.source.url`) } };
  }
  rules.refuse(`${path}.source`, "OpenAI takes base64 and URL images only");
  return undefined;
}

function documentPart(block: Json, path: string, rules: FieldRules): Json | undefined {
  rules.onlyKnown(block, ["type", "source", "title", "cache_control"], path);
  const source = asObject(block.source, `${path}.source`);
  if (source.type !== "base64" || source.media_type !== "application/pdf") {
    rules.refuse(`${path}.source`, "OpenAI takes base64 PDF documents only");
    return undefined;
  }
  rules.onlyKnown(source, ["type", "media_type", "data"], `${path}.source`);
  const filename = isUnset(block.title) ? "document.pdf" : asString(block.title, `${path}.title`);
  const fileData = `data:application/pdf;base64,${asString(source.data, `${path}.source.data`)}`;
  return { type: "file", file: { filename, file_data: fileData } };
}

function assistantMessage(content: unknown, path: string, rules: FieldRules): Json[] {
  if (typeof content === "string") return [{ role: "assistant", content }];
  const texts: string[] = [];
  const calls: Json[] = [];
  asArray(content, path).forEach((item, j) => {
    const block = asObject(item, `${path}.${j}`);
    const at = `${path}.${j}`;
    if (block.type === "text") texts.push(textOf(block, at, rules));
    else if (block.type === "tool_use") {
      rules.onlyKnown(block, ["type", "id", "name", "input", "cache_control"], at);
      calls.push({
        id: asString(block.id, `${at}.id`),
        type: "function",
        function: {
          name: asString(block.name, `${at}.name`),
          arguments: JSON.stringify(asObject(block.input, `${at}.input`)),
        },
      });
    } else rules.refuse(at, `OpenAI takes no ${String(block.type)} blocks`);
  });
  if (!texts.length && !calls.length) return [];
  const message: Json = {
    role: "assistant",
    content:
      texts.length === 0
        ? null
        : texts.length === 1
          ? texts[0]
          : texts.map((text) => ({ type: "text", text })),
  };
  if (calls.length) message.tool_calls = calls;
  return [message];
}
