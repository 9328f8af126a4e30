import "server-only";
import { and, eq, inArray, isNull, sql } from "drizzle-orm";
import type { Database } from "@/db";
import { type AgentFile, agentFiles } from "@/db/schema";
import type { UploadedFile } from "@/features/drawer/contracts";
import {
  DOCUMENT_MAX_BYTES,
  type FileType,
  formatBytes,
  isImageType,
  maxBytesFor,
  PDF_TYPE,
  recogniseFile,
  tooBigMessage,
} from "@/features/drawer/file-types";
import { AppError, notFound } from "@/lib/core/errors/app-error";
import { PdfUnreadable, pdfText } from "./pdf-text";

/** Each tenant's file storage: `FILE_QUOTA_BYTES`, default 200 MB (the sum of its stored files' sizes). */
export const DEFAULT_FILE_QUOTA_BYTES = 200 * 1024 * 1024;
/** An upload's whole body: the largest file plus room for the form's boundaries and headers. */
export const UPLOAD_BODY_MAX_BYTES = DOCUMENT_MAX_BYTES + 256 * 1024;
/** A file's text kept for the model (it reads at most 20,000 characters of a message's files anyway). */
export const STORED_TEXT_MAX = 100_000;

type Env = Record<string, string | undefined>;
const positiveInt = (value: string | undefined, fallback: number) => {
  const n = Number(value);
  return value?.trim() && Number.isSafeInteger(n) && n > 0 ? n : fallback;
};
export const fileQuotaBytes = (env: Env = process.env): number =>
  positiveInt(env.FILE_QUOTA_BYTES, DEFAULT_FILE_QUOTA_BYTES);

/** Who a file belongs to: only its uploader, in the tenant it was uploaded to, may use, read or delete it. */
export type FileOwner = { tenantId: string; userId: string };
export type Upload = { name: string; declaredType: string; bytes: Uint8Array };

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is removed.
const CONTROL = /[\u0000-\u001f\u007f]/g;

/** A file's name as stored and shown: no folders, no control characters, at most 200 characters. */
export function cleanFileName(raw: string): string {
  const base = raw.split(/[/\\]/).pop() ?? "";
  const name = base.replace(CONTROL, "").replace(/\s+/g, " ").trim();
  if (!name) return "file";
  if (name.length <= 200) return name;
  const dot = name.lastIndexOf(".");
  const extension = dot > 0 && name.length - dot <= 10 ? name.slice(dot) : "";
  return name.slice(0, 200 - extension.length) + extension;
}

/**
 * Checks an upload and stores it for its uploader: the type by content (415 otherwise), the size limit of that
 * type (413), text that is UTF-8 or a PDF whose text can be read (400), then, holding the tenant's row, the
 * tenant's quota (413 naming quota and usage) and the insert. Nothing is stored when any check fails.
 */
export async function storeUpload(
  db: Database,
  owner: FileOwner,
  upload: Upload,
  options: { quotaBytes?: number } = {},
): Promise<UploadedFile> {
  const name = cleanFileName(upload.name);
  const { bytes } = upload;
  if (!bytes.byteLength) throw new AppError("bad_request", `${name} is empty`);
  const recognised = recogniseFile(name, upload.declaredType, bytes);
  if (!recognised.ok) throw new AppError("unsupported_media_type", recognised.message);
  const type = recognised.type;
  const limit = maxBytesFor(type);
  if (bytes.byteLength > limit)
    throw new AppError("payload_too_large", tooBigMessage(name, bytes.byteLength, type));
  const text = await textOf(name, type, bytes);
  const quota = options.quotaBytes ?? fileQuotaBytes();
  return db.transaction(async (tx) => {
    // One upload at a time per tenant past this point, so two cannot both fit in the last free megabyte.
    // FOR NO KEY UPDATE does not block rows elsewhere that point at the tenant (their KEY SHARE locks).
    await tx.execute(sql`select id from tenant where id = ${owner.tenantId} for no key update`);
    const [usage] = await tx
      .select({ used: sql<string | number>`coalesce(sum(${agentFiles.size}), 0)::bigint` })
      .from(agentFiles)
      .where(eq(agentFiles.tenantId, owner.tenantId));
    const used = Number(usage?.used ?? 0);
    if (used + bytes.byteLength > quota)
      throw new AppError(
        "payload_too_large",
        `the file storage quota of this tenant is ${formatBytes(quota)} and ${formatBytes(used)} of it is used: ${name} (${formatBytes(bytes.byteLength)}) does not fit. Files are deleted with their conversation, by retention, or with DELETE /api/agent/files/{id}`,
      );
    const [row] = await tx
      .insert(agentFiles)
      .values({
        tenantId: owner.tenantId,
        userId: owner.userId,
        name,
        mediaType: type,
        size: bytes.byteLength,
        bytes: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength),
        ...(text === null ? {} : { text: text.slice(0, STORED_TEXT_MAX), textChars: text.length }),
      })
      .returning({ id: agentFiles.id });
    return { id: row!.id, name, type, size: bytes.byteLength };
  });
}

/** A text file's text (UTF-8, a BOM dropped) or a PDF's; null for an image. */
async function textOf(name: string, type: FileType, bytes: Uint8Array): Promise<string | null> {
  if (isImageType(type)) return null;
  if (type === PDF_TYPE) {
    try {
      return (await pdfText(bytes)).text;
    } catch (error) {
      if (error instanceof PdfUnreadable)
        throw new AppError("bad_request", `could not read the PDF: ${error.message}`);
      throw error;
    }
  }
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new AppError("unsupported_media_type", `${name} is not text: it is not valid UTF-8`);
  }
  if (text.includes("\u0000"))
    throw new AppError("unsupported_media_type", `${name} is not text: it holds binary (NUL) bytes`);
  return text;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ownFile = (owner: FileOwner, id: string) =>
  and(eq(agentFiles.tenantId, owner.tenantId), eq(agentFiles.userId, owner.userId), eq(agentFiles.id, id));

/** The uploader's own file; anyone else's (another member's, another tenant's) or an unknown id is 404. */
export async function ownFileOrThrow(db: Database, owner: FileOwner, id: string): Promise<AgentFile> {
  if (!UUID.test(id)) throw notFound("file");
  const [row] = await db.select().from(agentFiles).where(ownFile(owner, id));
  if (!row) throw notFound("file");
  return row;
}

/**
 * The uploader's files for a message, in the order asked; the first id that is not theirs is a 404 naming it, so a
 * message with a wrong attachment is refused whole.
 */
export async function ownFilesOrThrow(db: Database, owner: FileOwner, ids: string[]): Promise<AgentFile[]> {
  const unique = [...new Set(ids)];
  const rows = unique.length
    ? await db
        .select()
        .from(agentFiles)
        .where(
          and(
            eq(agentFiles.tenantId, owner.tenantId),
            eq(agentFiles.userId, owner.userId),
            inArray(agentFiles.id, unique),
          ),
        )
    : [];
  const byId = new Map(rows.map((r) => [r.id, r]));
  return unique.map((id) => {
    const row = byId.get(id);
    if (!row) throw new AppError("not_found", `file ${id} not found (upload it again)`);
    return row;
  });
}

/** Ties files to the conversation they were first sent in, so deleting that conversation deletes them. */
export async function linkFilesToConversation(
  db: Database,
  owner: FileOwner,
  ids: string[],
  conversationId: string,
): Promise<void> {
  if (!ids.length) return;
  await db
    .update(agentFiles)
    .set({ conversationId })
    .where(
      and(
        eq(agentFiles.tenantId, owner.tenantId),
        eq(agentFiles.userId, owner.userId),
        inArray(agentFiles.id, ids),
        isNull(agentFiles.conversationId),
      ),
    );
}

/** Deletes the uploader's own file (freeing its quota); 404 for anyone else's. */
export async function deleteOwnFile(db: Database, owner: FileOwner, id: string): Promise<void> {
  if (!UUID.test(id)) throw notFound("file");
  const deleted = await db.delete(agentFiles).where(ownFile(owner, id)).returning({ id: agentFiles.id });
  if (!deleted.length) throw notFound("file");
}
