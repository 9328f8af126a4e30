import { z } from "zod";
import { isImageMediaType, sniffImageType } from "@/lib/core/media/image-type";
import type { ImagePart } from "@/lib/gateway/types";
import type { StoredMessage } from "@/lib/turns/conversation";
import type { AddedImageInfo, AddedMessageSummary } from "@/lib/turns/events";
import type { ConversationFiles } from "./conversation-files";

/** A message a tool adds may carry at most this many images… */
export const TOOL_MESSAGE_MAX_IMAGES = 4;
/** …of at most this many bytes together, decoded (the drawer's limit for one uploaded image). */
export const TOOL_MESSAGE_MAX_BYTES = 5 * 1024 * 1024;
/** Its text, all parts together, in characters (what a tool's result may be before it is cut). */
export const TOOL_MESSAGE_MAX_TEXT = 8_000;
/** What the messages added in one turn may carry together: every later round of the turn sends them again. */
export const TURN_ADDED_MAX_IMAGES = 8;
export const TURN_ADDED_MAX_BYTES = 15 * 1024 * 1024;

// A data URL's base64 for 5 MB is about 7 MB; a little more leaves room for the prefix, and the byte check is exact.
const MAX_DATA_URL_CHARS = Math.ceil((TOOL_MESSAGE_MAX_BYTES * 4) / 3) + 256;
const DATA_URL = /^data:(image\/[a-z0-9.+-]+);base64,([A-Za-z0-9+/]*={0,2})$/;

const textPart = z.strictObject({ type: z.literal("text"), text: z.string().min(1) });
const dataImagePart = z.strictObject({
  type: z.literal("image"),
  /** `data:image/png;base64,…` (PNG, JPEG, GIF or WebP). */
  url: z.string().max(MAX_DATA_URL_CHARS, "an image may be at most 5 MB"),
  /** What the drawer shows for it (a file name, the address it came from). */
  name: z.string().max(500).optional(),
});
const fileImagePart = z.strictObject({
  type: z.literal("image"),
  /** An image file attached to this conversation by the turn's user (agent_files), read on the server. */
  fileId: z.string().max(100),
});

/** What a tool passes to `ctx.addMessage`: a user-role message of text and image parts. */
export const toolMessageInput = z.strictObject({
  role: z.literal("user"),
  parts: z
    .array(z.union([textPart, dataImagePart, fileImagePart]))
    .min(1, "a message needs at least one part"),
});
export type ToolMessage = z.input<typeof toolMessageInput>;
export type { AddedImageInfo, AddedMessageSummary };

/** A validated message, its images read and checked: ready to go to the model after the round's results. */
export type AddedMessage = AddedMessageSummary & { imageParts: ImagePart[] };

/** Who the message is for and what may read it: the turn's owner and conversation, and its model alias. */
export type ToolMessageScope = {
  tenantId: string;
  userId: string;
  conversationId: string;
  model: TurnModel | undefined;
  files: ConversationFiles | undefined;
};

/** The turn's model alias as a tool sees it: whether every model behind it reads images. */
export type TurnModel = { alias: string; label: string; supportsVision: boolean };

/** Why a turn's model cannot take images, naming its alias. */
export function noVisionMessage(model: TurnModel | undefined): string {
  if (!model) return "no model reads images here";
  const label = model.label && model.label !== model.alias ? ` (${model.label})` : "";
  return `the model alias "${model.alias}"${label} cannot read images; choose an alias that can`;
}

const formatSize = (bytes: number) =>
  bytes >= 1024 * 1024 ? `${+(bytes / 1024 / 1024).toFixed(1)} MB` : `${Math.ceil(bytes / 1024)} KB`;

/**
 * Checks a message a tool wants to add and reads its images: user role only, text and image parts, at most
 * TOOL_MESSAGE_MAX_IMAGES images of TOOL_MESSAGE_MAX_BYTES together (decoded), each a PNG, JPEG, GIF or WebP by
 * its bytes, and the text within TOOL_MESSAGE_MAX_TEXT. A file id names an image attached to this conversation by
 * its user; any other is "not found". Throws an Error saying what is wrong (the call's error result).
 */
export async function resolveToolMessage(
  input: unknown,
  scope: ToolMessageScope,
  toolName: string,
): Promise<AddedMessage> {
  const parsed = toolMessageInput.safeParse(input);
  if (!parsed.success) {
    const problems = parsed.error.issues.map(
      (i) => `${i.path.length ? i.path.join(".") : "(message)"}: ${i.message}`,
    );
    throw new Error(`addMessage: ${problems.slice(0, 5).join("; ")}`);
  }
  const parts = parsed.data.parts;
  const texts = parts.flatMap((p) => (p.type === "text" ? [p.text] : []));
  const text = texts.join("\n\n");
  if (text.length > TOOL_MESSAGE_MAX_TEXT)
    throw new Error(
      `addMessage: the message's text is ${text.length} characters; at most ${TOOL_MESSAGE_MAX_TEXT}`,
    );
  const wanted = parts.filter((p) => p.type === "image");
  if (wanted.length > TOOL_MESSAGE_MAX_IMAGES)
    throw new Error(
      `addMessage: a message may carry at most ${TOOL_MESSAGE_MAX_IMAGES} images (this one has ${wanted.length})`,
    );
  if (wanted.length && !scope.model?.supportsVision)
    throw new Error(`addMessage: ${noVisionMessage(scope.model)}`);
  const images: { part: ImagePart; info: AddedImageInfo }[] = [];
  let bytes = 0;
  for (const [i, part] of wanted.entries()) {
    const image =
      "fileId" in part ? await fileImage(part.fileId, scope) : dataImage(part.url, part.name, i + 1);
    if (image.info.size > TOOL_MESSAGE_MAX_BYTES)
      throw new Error(
        `addMessage: image ${i + 1} is ${image.info.size.toLocaleString("en-US")} bytes; an image may be at most ${formatSize(TOOL_MESSAGE_MAX_BYTES)}`,
      );
    bytes += image.info.size;
    if (bytes > TOOL_MESSAGE_MAX_BYTES)
      throw new Error(
        `addMessage: the message's images are more than ${formatSize(TOOL_MESSAGE_MAX_BYTES)} together; at most ${formatSize(TOOL_MESSAGE_MAX_BYTES)}`,
      );
    images.push(image);
  }
  return {
    // Providers refuse an empty text block: an image-only message says where it came from.
    text: text || `Image${images.length > 1 ? "s" : ""} added by ${toolName}.`,
    images: images.map((i) => i.info),
    imageParts: images.map((i) => i.part),
  };
}

/** A data URL's image: a declared image type whose bytes are that type. */
function dataImage(
  url: string,
  name: string | undefined,
  n: number,
): { part: ImagePart; info: AddedImageInfo } {
  const match = DATA_URL.exec(url);
  if (!match)
    throw new Error(`addMessage: image ${n} is not a base64 data URL of an image (data:image/png;base64,…)`);
  const declared = match[1]!;
  if (!isImageMediaType(declared))
    throw new Error(`addMessage: image ${n} is ${declared}; only PNG, JPEG, GIF and WebP images can be sent`);
  const data = match[2]!;
  const decoded = Buffer.from(data, "base64");
  const actual = sniffImageType(decoded);
  if (actual !== declared)
    throw new Error(
      `addMessage: image ${n} says ${declared} but its bytes are ${actual ?? "not a PNG, JPEG, GIF or WebP image"}`,
    );
  return {
    part: { mediaType: actual, data },
    info: { type: actual, size: decoded.byteLength, ...(name ? { name } : {}) },
  };
}

/** An image file of this conversation, uploaded by this user in this tenant; anything else is "not found". */
async function fileImage(
  fileId: string,
  scope: ToolMessageScope,
): Promise<{ part: ImagePart; info: AddedImageInfo }> {
  if (!scope.files) throw new Error("addMessage: files cannot be read here");
  const file = await scope.files.find(
    { tenantId: scope.tenantId, userId: scope.userId, conversationId: scope.conversationId },
    fileId,
  );
  if (!file) throw new Error(`file ${fileId} not found in this conversation`);
  const type = sniffImageType(file.bytes);
  if (!type || !isImageMediaType(file.mediaType))
    throw new Error(`file ${fileId} (${file.name}) is ${file.mediaType}, not an image`);
  return {
    part: { mediaType: type, data: Buffer.from(file.bytes).toString("base64") },
    info: { type, size: file.bytes.byteLength, name: file.name, fileId: file.id },
  };
}

/** What one turn's added messages have taken of TURN_ADDED_MAX_IMAGES and TURN_ADDED_MAX_BYTES so far. */
export class AddedAllowance {
  private images = 0;
  private bytes = 0;

  /** Takes the message's share, or throws saying the turn has had enough. */
  take(message: AddedMessage): void {
    const size = message.images.reduce((n, i) => n + i.size, 0);
    if (this.images + message.images.length > TURN_ADDED_MAX_IMAGES)
      throw new Error(
        `addMessage: this turn already carries ${this.images} added images; at most ${TURN_ADDED_MAX_IMAGES}`,
      );
    if (this.bytes + size > TURN_ADDED_MAX_BYTES)
      throw new Error(
        `addMessage: this turn's added images would be more than ${formatSize(TURN_ADDED_MAX_BYTES)} together`,
      );
    this.images += message.images.length;
    this.bytes += size;
  }

  /** Gives a message's share back (its call did not end well: the message is not sent). */
  give(message: AddedMessage): void {
    this.images -= message.images.length;
    this.bytes -= message.images.reduce((n, i) => n + i.size, 0);
  }
}

/**
 * The stored form of a message a call added: a user message of kind `tool_message` naming its call, with its images
 * in memory for this turn's later rounds (never stored: the store keeps their descriptions in `data`).
 */
export function addedMessage(call: { id: string; name: string }, added: AddedMessage): StoredMessage {
  return {
    role: "user",
    content: added.text,
    ...(added.imageParts.length ? { images: added.imageParts } : {}),
    kind: "tool_message",
    data: { toolCallId: call.id, tool: call.name, images: added.images },
  };
}

/** The summary the drawer and the audit get: the text and what the images are. */
export const summaryOf = ({ text, images }: AddedMessage): AddedMessageSummary => ({ text, images });
