/**
 * The texts of a request or an answer, per wire format, and their write-back. Each segment names the path of its
 * text in the body, so the engine's new texts (redacted) are set into a copy and the body itself is never mutated.
 * What is not text (images, audio, token arrays, a tool call's JSON arguments) is not a segment.
 */
import type { WireFormat } from "@/lib/gateway/forward/formats";
import type { Json } from "@/lib/gateway/translate/types";
import type { TextSegment } from "./stage-result";
import type { TextOrigin } from "./types";

export type SegmentPath = readonly (string | number)[];
export type Segment = TextSegment & { path: SegmentPath };

type Collect = (body: Json, add: (text: unknown, origin: TextOrigin, path: SegmentPath) => void) => void;

const ROLE_ORIGIN: Record<string, TextOrigin> = {
  system: "system",
  developer: "system",
  user: "user",
  assistant: "assistant",
  tool: "tool_result",
  function: "tool_result",
};

// A string, or a list of parts whose text-typed ones (`types`) carry `text`.
function collectContent(
  content: unknown,
  origin: TextOrigin,
  path: SegmentPath,
  add: Parameters<Collect>[1],
  types: readonly string[],
) {
  if (typeof content === "string") return add(content, origin, path);
  each(content, (part, index) => {
    if (types.includes(String(part.type))) add(part.text, origin, [...path, index, "text"]);
  });
}

function each(list: unknown, visit: (item: Record<string, unknown>, index: number) => void) {
  if (!Array.isArray(list)) return;
  list.forEach((item, index) => {
    if (item && typeof item === "object") visit(item as Record<string, unknown>, index);
  });
}

const openAIChat: Collect = (body, add) =>
  each(body.messages, (message, index) => {
    const origin = ROLE_ORIGIN[String(message.role)] ?? "user";
    collectContent(message.content, origin, ["messages", index, "content"], add, ["text"]);
  });

function anthropicBlocks(
  content: unknown,
  origin: TextOrigin,
  path: SegmentPath,
  add: Parameters<Collect>[1],
) {
  if (typeof content === "string") return add(content, origin, path);
  each(content, (block, index) => {
    const at = [...path, index];
    if (block.type === "text") add(block.text, origin, [...at, "text"]);
    else if (block.type === "tool_result")
      anthropicBlocks(block.content, "tool_result", [...at, "content"], add);
    else if (block.type === "document") {
      const source = block.source as Record<string, unknown> | undefined;
      if (source?.type === "text") add(source.data, "attachment", [...at, "source", "data"]);
      if (source?.type === "content")
        anthropicBlocks(source.content, "attachment", [...at, "source", "content"], add);
    }
  });
}

const anthropicMessages: Collect = (body, add) => {
  anthropicBlocks(body.system, "system", ["system"], add);
  each(body.messages, (message, index) =>
    anthropicBlocks(
      message.content,
      ROLE_ORIGIN[String(message.role)] ?? "user",
      ["messages", index, "content"],
      add,
    ),
  );
};

const openAIResponses: Collect = (body, add) => {
  add(body.instructions, "system", ["instructions"]);
  if (typeof body.input === "string") return add(body.input, "user", ["input"]);
  each(body.input, (item, index) => {
    if (item.type === "function_call_output")
      return add(item.output, "tool_result", ["input", index, "output"]);
    if (item.type !== undefined && item.type !== "message") return;
    const origin = ROLE_ORIGIN[String(item.role)] ?? "user";
    collectContent(item.content, origin, ["input", index, "content"], add, ["input_text", "output_text"]);
  });
};

// `input` as a string or a list of strings (token arrays are numbers and skipped); moderations add text parts.
const stringsOrParts: Collect = (body, add) => {
  if (typeof body.input === "string") return add(body.input, "user", ["input"]);
  if (!Array.isArray(body.input)) return;
  body.input.forEach((item: unknown, index: number) => {
    if (typeof item === "string") add(item, "user", ["input", index]);
    else if (item && typeof item === "object" && (item as Json).type === "text")
      add((item as Json).text, "user", ["input", index, "text"]);
  });
};

const field =
  (name: string): Collect =>
  (body, add) =>
    add(body[name], "user", [name]);

const REQUEST_TEXTS: Record<WireFormat, Collect> = {
  "openai-chat": openAIChat,
  "anthropic-messages": anthropicMessages,
  "anthropic-count-tokens": anthropicMessages,
  "openai-responses": openAIResponses,
  "openai-embeddings": stringsOrParts,
  "openai-moderations": stringsOrParts,
  "openai-image-generations": field("prompt"),
  "openai-image-edits": field("prompt"),
  "openai-speech": field("input"),
  "openai-transcriptions": field("prompt"),
  "openai-translations": field("prompt"),
};

const ANSWER_TEXTS: Partial<Record<WireFormat, Collect>> = {
  "openai-chat": (answer, add) =>
    each(answer.choices, (choice, index) => {
      const message = choice.message as Json | undefined;
      add(message?.content, "output", ["choices", index, "message", "content"]);
    }),
  "anthropic-messages": (answer, add) =>
    each(answer.content, (block, index) => {
      if (block.type === "text") add(block.text, "output", ["content", index, "text"]);
    }),
  "openai-responses": (answer, add) =>
    each(answer.output, (item, index) => {
      if (item.type === "message")
        collectContent(item.content, "output", ["output", index, "content"], add, ["output_text"]);
    }),
  // A transcript's text, and verbose_json's segments and words, which repeat it piece by piece.
  "openai-transcriptions": transcript,
  "openai-translations": transcript,
  // The prompt an image model says it drew from (dall-e-3's revised_prompt).
  "openai-image-generations": revisedPrompts,
  "openai-image-edits": revisedPrompts,
};

function transcript(answer: Json, add: Parameters<Collect>[1]) {
  add(answer.text, "output", ["text"]);
  each(answer.segments, (segment, index) => add(segment.text, "output", ["segments", index, "text"]));
  each(answer.words, (word, index) => add(word.word, "output", ["words", index, "word"]));
}

function revisedPrompts(answer: Json, add: Parameters<Collect>[1]) {
  each(answer.data, (image, index) => add(image.revised_prompt, "output", ["data", index, "revised_prompt"]));
}

/** Formats whose answer may be plain text rather than JSON (a transcript as text, srt or vtt): read whole. */
export const TEXT_ANSWER_FORMATS: ReadonlySet<WireFormat> = new Set<WireFormat>([
  "openai-transcriptions",
  "openai-translations",
]);

function collect(collector: Collect | undefined, body: Json): Segment[] {
  const segments: Segment[] = [];
  collector?.(body, (text, origin, path) => {
    if (typeof text === "string" && text !== "") segments.push({ text, origin, path });
  });
  return segments;
}

export function requestSegments(format: WireFormat, body: Json): Segment[] {
  return collect(REQUEST_TEXTS[format], body);
}

/** The answer's texts (every choice of a chat, every text block, every output_text), for output rules. */
export function answerSegments(format: WireFormat, answer: Json): Segment[] {
  return collect(ANSWER_TEXTS[format], answer);
}

/** The answer's whole text, its segments joined. */
export function answerText(format: WireFormat, answer: Json): string {
  return answerSegments(format, answer)
    .map((segment) => segment.text)
    .join("");
}

/**
 * A copy of the answer with new texts: a list sets each of `answerSegments`' texts in order; a single string goes
 * into the first text and empties the others (the whole answer's text, as `answerText` gave it).
 */
export function applyAnswer(format: WireFormat, answer: Json, newText: string | readonly string[]): Json {
  const segments = answerSegments(format, answer);
  const texts =
    typeof newText === "string" ? segments.map((_, index) => (index === 0 ? newText : "")) : newText;
  return applySegments(
    answer,
    segments.map((segment, index) => ({ path: segment.path, text: texts[index] ?? segment.text })),
  );
}

/** A copy of `body` with each segment's text set at its path; `body` is not mutated. */
export function applySegments(body: Json, segments: readonly { path: SegmentPath; text: string }[]): Json {
  const copy = structuredClone(body);
  for (const { path, text } of segments) {
    let node: unknown = copy;
    for (const key of path.slice(0, -1)) node = (node as Record<string | number, unknown>)[key];
    (node as Record<string | number, unknown>)[path.at(-1)!] = text;
  }
  return copy;
}

/**
 * A drawer message's user text cut into its pieces: the user's own words (origin `user`) and each `<context>` block
 * the app placed beside them (lib/core/text/context-block.ts): an attached file (`kind="file"`, origin `attachment`)
 * or a context item (origin `context`), so the injection check reads them as the indirect path. The pieces joined
 * are the text exactly, so redacted pieces join back into the message. A linear scan: each search starts where the
 * last one ended, and an unclosed block ends the search.
 */
export function userTextPieces(text: string): { text: string; origin: TextOrigin }[] {
  const pieces: { text: string; origin: TextOrigin }[] = [];
  let at = 0;
  let words = 0;
  for (;;) {
    // A block's tag always has attributes ("<context kind=…"); the preface's own "<context>" is the user's text.
    const open = text.indexOf("<context ", at);
    if (open === -1) break;
    const head = text.indexOf(">", open);
    const close = head === -1 ? -1 : text.indexOf("</context>", head);
    if (close === -1) break;
    const end = close + "</context>".length;
    if (open > words) pieces.push({ text: text.slice(words, open), origin: "user" });
    const kind = text.slice(open, head + 1).includes('kind="file"') ? "attachment" : "context";
    pieces.push({ text: text.slice(open, end), origin: kind });
    words = end;
    at = end;
  }
  if (words < text.length || pieces.length === 0) pieces.push({ text: text.slice(words), origin: "user" });
  return pieces;
}
