import "server-only";
import type { Database } from "@/db";
import type { AgentFile } from "@/db/schema";
import type { SendTurnInput, UploadedFile } from "@/features/drawer/contracts";
import { type ImageType, isImageType } from "@/features/drawer/file-types";
import type { TurnExtras } from "@/lib/agent/service";
import type { TenantAccess, UserContext } from "@/lib/auth/users";
import { AppError } from "@/lib/core/errors/app-error";
import { CONTEXT_PREFACE, contextBlock } from "@/lib/core/text/context-block";
import type { ModelInfo } from "@/lib/gateway/types";
import { ownFilesOrThrow } from "./files";

/** The most of attached files' text one message puts in the model's context, in characters, all files together. */
export const ATTACHMENT_TEXT_LIMIT = 20_000;

/** What resolving attachments needs (the turn route's ExtrasInput): who asks, where, the ids sent, the model. */
export type AttachmentInput = {
  db: Database;
  auth: UserContext;
  tenant: TenantAccess;
  request: Pick<SendTurnInput, "attachments">;
  model: Pick<ModelInfo, "label" | "supportsVision">;
};

const uploaded = (f: AgentFile): UploadedFile => ({
  id: f.id,
  name: f.name,
  type: f.mediaType,
  size: f.size,
});

/**
 * A message's attachments, loaded for their uploader before the turn (a refusal sends nothing): an id that is not
 * the user's own file is 404 naming it; images go to the model as image parts, refused (400) when the chosen alias
 * cannot read images; text and PDF files enter the context as one escaped block each, cut to share
 * ATTACHMENT_TEXT_LIMIT with an `attachment_cut` notice per cut file. The message shows the files
 * (`data.attachments`); the audit names them and keeps the text the model read (masked by the recorder).
 */
export async function resolveAttachments(input: AttachmentInput): Promise<TurnExtras> {
  const ids = input.request.attachments ?? [];
  if (!ids.length) return {};
  const files = await ownFilesOrThrow(
    input.db,
    { tenantId: input.tenant.id, userId: input.auth.user.id },
    ids,
  );
  const images = files.filter((f) => isImageType(f.mediaType));
  if (images.length && !input.model.supportsVision)
    throw new AppError("bad_request", `${input.model.label} cannot read images; choose a model that can`);
  const texts = fileBlocks(files.filter((f) => !isImageType(f.mediaType)));
  return {
    ...(texts.blocks.length ? { contextBlocks: [CONTEXT_PREFACE, ...texts.blocks] } : {}),
    ...(images.length
      ? {
          images: images.map((f) => ({
            mediaType: f.mediaType as ImageType,
            data: f.bytes.toString("base64"),
          })),
        }
      : {}),
    ...(texts.notices.length ? { notices: texts.notices } : {}),
    data: { attachments: files.map(uploaded) },
    audit: {
      attachments: files.map(uploaded),
      ...(texts.blocks.length ? { attachmentText: texts.blocks } : {}),
    },
  };
}

/**
 * A regenerated message's images, loaded again (its text blocks are carried as stored): refused like a new message's
 * when the alias cannot read images, and 410 when an image is no longer stored (deleted, or past retention).
 */
export async function carriedImages(
  input: AttachmentInput,
  carried: Record<string, unknown>,
): Promise<TurnExtras> {
  const attachments = Array.isArray(carried.attachments) ? (carried.attachments as UploadedFile[]) : [];
  const images = attachments.filter((a) => typeof a?.id === "string" && isImageType(a.type));
  if (!images.length) return {};
  if (!input.model.supportsVision)
    throw new AppError("bad_request", `${input.model.label} cannot read images; choose a model that can`);
  const owner = { tenantId: input.tenant.id, userId: input.auth.user.id };
  const files = await ownFilesOrThrow(
    input.db,
    owner,
    images.map((a) => a.id),
  ).catch((error: unknown) => {
    if (!(error instanceof AppError) || error.code !== "not_found") throw error;
    throw new AppError(
      "gone",
      "an image of this message is no longer stored; attach it again and send the message as an edit",
    );
  });
  return {
    images: files.map((f) => ({ mediaType: f.mediaType as ImageType, data: f.bytes.toString("base64") })),
  };
}

type CutNotice = { code: "attachment_cut"; message: string };

/**
 * One block per text or PDF file, sharing `limit` characters fairly: the shortest files are taken whole first,
 * and what they leave is split evenly among the longer ones, which are cut (and say so in the block and a notice).
 */
export function fileBlocks(
  files: Pick<AgentFile, "id" | "name" | "mediaType" | "text" | "textChars">[],
  limit = ATTACHMENT_TEXT_LIMIT,
): { blocks: string[]; notices: CutNotice[] } {
  const kept = new Map<string, number>();
  let left = limit;
  const bySize = [...files].sort((a, b) => (a.text ?? "").length - (b.text ?? "").length);
  for (const [i, f] of bySize.entries()) {
    const share = Math.floor(left / (bySize.length - i));
    const take = Math.min((f.text ?? "").length, share);
    kept.set(f.id, take);
    left -= take;
  }
  const blocks: string[] = [];
  const notices: CutNotice[] = [];
  for (const f of files) {
    const text = f.text ?? "";
    const take = kept.get(f.id) ?? 0;
    const total = Math.max(f.textChars ?? text.length, text.length);
    const attrs: Record<string, string> = { kind: "file", name: f.name, type: f.mediaType };
    if (take < total) {
      attrs.cut = `the first ${take.toLocaleString("en-US")} of ${total.toLocaleString("en-US")} characters`;
      notices.push({
        code: "attachment_cut",
        message: `${f.name} was cut to its first ${take.toLocaleString("en-US")} of ${total.toLocaleString("en-US")} characters (${limit.toLocaleString("en-US")} at most for a message's files)`,
      });
    }
    blocks.push(contextBlock(attrs, sliceWhole(text, take)));
  }
  return { blocks, notices };
}

/** The first `n` UTF-16 units, one fewer when the cut would split a surrogate pair (a lone half is not text). */
function sliceWhole(text: string, n: number): string {
  const code = text.charCodeAt(n - 1);
  return n > 0 && n < text.length && code >= 0xd800 && code <= 0xdbff
    ? text.slice(0, n - 1)
    : text.slice(0, n);
}
