import "server-only";
import { createHash } from "node:crypto";
import { unescapeBlockText, withoutContextBlocks } from "@/lib/core/text/context-block";
import { sleep } from "../sleep";
import {
  type ChatMessage,
  IMAGE_TOKEN_ESTIMATE,
  imageCount,
  type ToolCall,
  type ToolSchema,
  type Usage,
} from "../types";
import {
  type AdapterEvent,
  type AdapterRequest,
  type AdapterResult,
  attemptHooks,
  type ModelAdapter,
} from "./adapter";

// Verbs that name nothing on their own: "get" must not pick get_weather for "get me a coffee".
const GENERIC_WORDS = new Set([
  "get",
  "list",
  "set",
  "create",
  "update",
  "delete",
  "find",
  "search",
  "make",
  "show",
  "fetch",
  "run",
  "add",
  "the",
]);
const FREE_TEXT_FIELDS = new Set([
  "query",
  "q",
  "text",
  "message",
  "input",
  "question",
  "topic",
  "prompt",
  "title",
  "content",
  "body",
  "task",
  "description",
]);

/**
 * The built-in demo model: no network, deterministic. It calls an offered tool when the user's words name it
 * (or one of its keywords), then answers from the result; otherwise it says what it is. Cost is always 0.
 */
export class OfflineAdapter implements ModelAdapter {
  readonly type = "offline" as const;
  constructor(private readonly options: { chunkDelayMs?: number } = {}) {}

  async chat(req: AdapterRequest, signal: AbortSignal): Promise<AdapterResult> {
    signal.throwIfAborted();
    attemptHooks.getStore()?.onResponse(); // no connection to wait for
    const reply = respond(req);
    return { ...reply, finishReason: reply.toolCalls.length ? "tool_calls" : "stop", servedModel: req.model };
  }

  async *stream(req: AdapterRequest, signal: AbortSignal): AsyncIterable<AdapterEvent> {
    attemptHooks.getStore()?.onResponse();
    const reply = respond(req);
    for (const piece of reply.content.match(/\S+\s*/g) ?? []) {
      await sleep(this.options.chunkDelayMs ?? 0, signal);
      yield { type: "text", delta: piece };
    }
    for (const call of reply.toolCalls) {
      await sleep(this.options.chunkDelayMs ?? 0, signal);
      yield { type: "tool_call", call };
    }
    yield {
      type: "end",
      finishReason: reply.toolCalls.length ? "tool_calls" : "stop",
      usage: reply.usage,
      servedModel: req.model,
    };
  }
}

function respond(req: AdapterRequest): { content: string; toolCalls: ToolCall[]; usage: Usage } {
  const { content, toolCalls } = decide(req);
  const inputChars = req.messages.reduce((n, m) => n + m.content.length, 0);
  const inputImages = imageCount(req.messages);
  const outputChars =
    content.length + toolCalls.reduce((n, c) => n + JSON.stringify(c.args).length + c.name.length, 0);
  return {
    content,
    toolCalls,
    usage: {
      inputTokens: Math.ceil(inputChars / 4) + inputImages * IMAGE_TOKEN_ESTIMATE,
      cachedInputTokens: 0,
      cacheWriteTokens: 0,
      outputTokens: Math.max(1, Math.ceil(outputChars / 4)),
      reasoningTokens: 0,
    },
  };
}

function decide(req: AdapterRequest): { content: string; toolCalls: ToolCall[] } {
  const trailingResults = trailingToolResults(req.messages);
  if (trailingResults.length) return { content: summarize(trailingResults), toolCalls: [] };
  // Matched on the user's own words: attached context and files' text must not pick a tool by their words.
  const lastUserMessage = [...req.messages].reverse().find((m) => m.role === "user");
  const lastUser = lastUserMessage?.content ?? "";
  const userText = withoutContextBlocks(lastUser);
  const tools = req.toolChoice === "none" ? [] : (req.tools ?? []);
  const forced =
    typeof req.toolChoice === "object"
      ? tools.find((t) => t.name === (req.toolChoice as { name: string }).name)
      : undefined;
  const tool = forced ?? pickTool(userText, tools) ?? (req.toolChoice === "required" ? tools[0] : undefined);
  if (tool) {
    return {
      content: "",
      toolCalls: [{ id: callId(userText, tool.name), name: tool.name, args: argsFor(tool, userText) }],
    };
  }
  const attached = attachedItems(lastUser) + readAttachments(lastUserMessage);
  return { content: introduce(userText, tools, attached), toolCalls: [] };
}

function trailingToolResults(messages: ChatMessage[]): Extract<ChatMessage, { role: "tool" }>[] {
  const out: Extract<ChatMessage, { role: "tool" }>[] = [];
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role !== "tool") break;
    out.unshift(m);
  }
  return out;
}

function summarize(results: Extract<ChatMessage, { role: "tool" }>[]): string {
  return results.map((r) => `${describeResult(r.name, r.content)}`).join("\n\n");
}

const MAX_TABLE_ROWS = 20;

/** Turns a tool result into readable markdown: a table for a list of records, a list for one record. */
export function describeResult(tool: string, content: string): string {
  let value: unknown;
  try {
    value = JSON.parse(content);
  } catch {
    return `**${tool}** returned: ${content.length > 600 ? `${content.slice(0, 600)}…` : content}`;
  }
  if (isRecord(value) && typeof value.error === "string")
    return `**${tool}** reported a problem: ${value.error}`;
  // A result that says what it found in a sentence (the governance tools) leads with it.
  if (isRecord(value) && typeof value.summary === "string") {
    const { summary, ...rest } = value;
    return `${summary}\n\n${describeResult(tool, JSON.stringify(rest))}`;
  }
  const rows = Array.isArray(value)
    ? value
    : isRecord(value)
      ? Object.values(value).find(Array.isArray)
      : undefined;
  if (rows?.every(isRecord)) {
    if (!rows.length) return `**${tool}** found nothing.`;
    const columns = Object.keys(rows[0] as object).filter((k) =>
      rows.some((r) => isScalar((r as Record<string, unknown>)[k])),
    );
    const cell = (v: unknown) =>
      String(v ?? "")
        .replace(/\|/g, "\\|")
        .replace(/\n/g, " ");
    const table = [
      `| ${columns.join(" | ")} |`,
      `| ${columns.map(() => "---").join(" | ")} |`,
      ...rows
        .slice(0, MAX_TABLE_ROWS)
        .map((r) => `| ${columns.map((c) => cell((r as Record<string, unknown>)[c])).join(" | ")} |`),
    ].join("\n");
    const more = rows.length > MAX_TABLE_ROWS ? `\n\n…and ${rows.length - MAX_TABLE_ROWS} more.` : "";
    return `Here is what **${tool}** found (${rows.length}):\n\n${table}${more}`;
  }
  if (isRecord(value)) {
    const lines = Object.entries(value)
      .filter(([, v]) => v !== null && v !== undefined)
      .map(([k, v]) => `- **${k}**: ${isScalar(v) ? String(v) : JSON.stringify(v)}`);
    return `Here is what **${tool}** returned:\n\n${lines.join("\n")}`;
  }
  return `**${tool}** returned: ${String(value)}`;
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);
const isScalar = (v: unknown) => v === null || ["string", "number", "boolean"].includes(typeof v);

function introduce(userText: string, tools: ToolSchema[], attached: string): string {
  const quoted = userText.length > 200 ? `${userText.slice(0, 200)}…` : userText;
  const offer = tools.length
    ? ` I can use these tools when you name them: ${tools.map((t) => t.name).join(", ")}.`
    : " Set OPENAI_API_KEY or ANTHROPIC_API_KEY (or a gateway.config.json) to talk to a real model.";
  return `I am the offline demo model, answering without any provider. You said: "${quoted}".${attached}${offer}`;
}

const BLOCK_WITH_BODY = /<context((?:\s+[a-z_]+="[^"]*")*)\s*>\n([\s\S]*?)\n<\/context>/g;

/**
 * What the user attached as context items (files are another's to read), by label with two of their fields, e.g.
 * ` You attached Order A-1001 (customer: Wile E. Coyote; status: open).`: so a fresh install shows the item arrived.
 */
function attachedItems(content: string): string {
  const items: string[] = [];
  for (const [, rawAttrs, rawBody] of content.matchAll(BLOCK_WITH_BODY)) {
    const attrs = Object.fromEntries(
      [...rawAttrs!.matchAll(/([a-z_]+)="([^"]*)"/g)].map((a) => [a[1]!, unescapeBlockText(a[2]!)]),
    );
    if (attrs.kind === "file") continue;
    const label = attrs.label ?? `${attrs.kind} ${attrs.id}`;
    const fields = unescapeBlockText(rawBody!)
      .split("\n")
      .map((line) => /^([A-Za-z]+): (.+)$/.exec(line))
      .filter((m): m is RegExpExecArray => m !== null && !label.includes(m[2]!))
      .slice(0, 2)
      .map((m) => `${m[1]}: ${m[2]!.length > 80 ? `${m[2]!.slice(0, 80)}…` : m[2]}`);
    items.push(fields.length ? `${label} (${fields.join("; ")})` : label);
  }
  return items.length ? ` You attached ${items.join(", ")}.` : "";
}

/**
 * What else the user's message brought, so a fresh install shows attachments arrive: each file block's name and the
 * start of its text (` I read notes.md: "…".`), and how many images came (the offline model cannot see them).
 */
function readAttachments(message: ChatMessage | undefined): string {
  if (message?.role !== "user") return "";
  const read: string[] = [];
  for (const [, rawAttrs, rawBody] of message.content.matchAll(BLOCK_WITH_BODY)) {
    const attrs = Object.fromEntries(
      [...rawAttrs!.matchAll(/([a-z_]+)="([^"]*)"/g)].map((a) => [a[1]!, unescapeBlockText(a[2]!)]),
    );
    if (attrs.kind !== "file") continue;
    const text = unescapeBlockText(rawBody!).replace(/\s+/g, " ").trim();
    const start = text.length > 120 ? `${text.slice(0, 120)}…` : text;
    read.push(` I read ${attrs.name ?? "a file"}: "${start}".`);
  }
  const images = message.images?.length ?? 0;
  if (images)
    read.push(
      ` I received ${images} image${images === 1 ? "" : "s"}, but as the offline demo model I cannot see images.`,
    );
  return read.join("");
}

export function pickTool(text: string, tools: ToolSchema[]): ToolSchema | undefined {
  const lower = text.toLowerCase();
  let best: { tool: ToolSchema; score: number } | undefined;
  for (const tool of tools) {
    const nameWords = tool.name
      .split(/[_\-\s]+|(?=[A-Z])/)
      .map((w) => w.toLowerCase())
      .filter(Boolean);
    const words = [
      ...nameWords.filter((w) => w.length > 2 && !GENERIC_WORDS.has(w)),
      ...(tool.keywords ?? []).map((k) => k.toLowerCase()),
    ];
    let score = lower.includes(tool.name.toLowerCase()) || lower.includes(nameWords.join(" ")) ? 10 : 0;
    // Whole words (plurals too): "every" must not match "everything".
    for (const w of words) if (new RegExp(`\\b${escapeRegExp(w)}(?:s|es)?\\b`, "i").test(lower)) score += 1;
    if (score > 0 && (!best || score > best.score)) best = { tool, score };
  }
  return best?.tool;
}

type JsonSchema = {
  type?: string | string[];
  enum?: unknown[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  default?: unknown;
};

/** Fills the tool's arguments from the user's words: enums named in the text, the first number, quoted text, or the text itself. */
export function argsFor(tool: ToolSchema, text: string): Record<string, unknown> {
  const schema = tool.parameters as JsonSchema;
  const args: Record<string, unknown> = {};
  const required = new Set(schema.required ?? []);
  const quoted = text.match(/["“']([^"”']+)["”']/)?.[1];
  const numbers = text.match(/-?\d+(\.\d+)?/g) ?? [];
  let numberIndex = 0;
  for (const [name, prop] of Object.entries(schema.properties ?? {})) {
    const type = Array.isArray(prop.type) ? prop.type[0] : prop.type;
    if (prop.enum?.length) {
      const phrase = phraseArg(name, text);
      const named =
        (phrase !== undefined && prop.enum.includes(phrase) ? phrase : undefined) ??
        prop.enum.find((v) => typeof v === "string" && text.toLowerCase().includes(v.toLowerCase()));
      if (named !== undefined || required.has(name)) args[name] = named ?? prop.default ?? prop.enum[0];
    } else if (type === "number" || type === "integer") {
      const n = numbers[numberIndex++];
      if (n !== undefined) args[name] = type === "integer" ? Math.trunc(Number(n)) : Number(n);
      else if (required.has(name)) args[name] = prop.default ?? 1;
    } else if (type === "boolean") {
      if (required.has(name)) args[name] = prop.default ?? true;
    } else if (type === "string") {
      if (required.has(name) || FREE_TEXT_FIELDS.has(name))
        args[name] = quoted ?? (FREE_TEXT_FIELDS.has(name) ? text : (prop.default ?? text));
    } else if (type === "array") {
      if (required.has(name)) args[name] = [];
    } else if (type === "object" && required.has(name)) {
      args[name] = {};
    }
  }
  return args;
}

// Everyday words for the governance tools' `range` and `drillBy` (the demo model has no calendar or sense of "who").
const RANGE_PHRASES: [RegExp, string][] = [
  [/\b(last|past) hour\b/i, "1h"],
  [/\btoday\b|\b(last|past) (24 hours|day)\b/i, "24h"],
  [/\b(this|last|past) week\b|\b7 days\b/i, "7d"],
  [/\b(last|past) (30 days|month)\b/i, "30d"],
  [/\bthis month\b/i, "month"],
];
function phraseArg(name: string, text: string): string | undefined {
  if (name === "range") return RANGE_PHRASES.find(([words]) => words.test(text))?.[1];
  if (name === "drillBy" && /\bwho\b/i.test(text)) return "user";
  return undefined;
}

function callId(text: string, name: string): string {
  return `call_offline_${createHash("sha256").update(`${name}\n${text}`).digest("hex").slice(0, 12)}`;
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
