// Files in the composer: what may be attached, how big, and the state of each upload. Pure, tested in node.

import { formatNumber } from "@/components/schema-page/format";
import { MAX_ATTACHMENTS, type UploadedFile } from "@/features/drawer/contracts";
import type { Locale } from "@/lib/i18n/messages";

/** Images go to vision models as image parts; the others are read as text (PDF: its text extracted). */
export const IMAGE_TYPES = ["image/png", "image/jpeg", "image/webp", "image/gif"] as const;
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
/** Text-like files by extension: browsers name some of them with no type or an odd one (.md, .csv on Windows). */
const TEXT_EXTENSIONS = ["txt", "md", "markdown", "csv", "json", "pdf"];
const TEXT_TYPES = ["text/plain", "text/markdown", "text/csv", "application/json", "application/pdf"];

/** What the file picker offers. */
export const ACCEPT = [...IMAGE_TYPES, ...TEXT_TYPES, ...TEXT_EXTENSIONS.map((e) => `.${e}`)].join(",");

export const isImageType = (type: string) => (IMAGE_TYPES as readonly string[]).includes(type);

const extensionOf = (name: string) => {
  const dot = name.lastIndexOf(".");
  return dot > 0 ? name.slice(dot + 1).toLowerCase() : "";
};

/**
 * The browser's quick check before an upload, in the server's words: an obviously wrong type or a too-big
 * image never leaves the machine. The server checks again and decides (size limits of text files, quota).
 */
export function precheck(file: { name: string; type: string; size: number }): string | null {
  const type = file.type.toLowerCase();
  if (isImageType(type)) {
    return file.size > MAX_IMAGE_BYTES ? `${file.name} is too big: images can be at most 5 MB` : null;
  }
  if (type.startsWith("image/") || type.startsWith("video/") || type.startsWith("audio/"))
    return `${file.name}: this type of file cannot be attached (images: PNG, JPEG, WebP, GIF; text: TXT, Markdown, CSV, JSON, PDF)`;
  const known =
    TEXT_TYPES.includes(type) || type.startsWith("text/") || TEXT_EXTENSIONS.includes(extensionOf(file.name));
  return known
    ? null
    : `${file.name}: this type of file cannot be attached (images: PNG, JPEG, WebP, GIF; text: TXT, Markdown, CSV, JSON, PDF)`;
}

/** "812 B", "14.2 KB", "3.5 MB": a file's size on its chip. */
export function formatBytes(bytes: number, locale: Locale = "en"): string {
  if (!Number.isFinite(bytes) || bytes < 0) return "—";
  if (bytes < 1024) return `${formatNumber(bytes, locale, 0)} B`;
  if (bytes < 1024 * 1024) return `${formatNumber(bytes / 1024, locale, 1)} KB`;
  return `${formatNumber(bytes / (1024 * 1024), locale, 1)} MB`;
}

/** One file in the composer, from the moment it is chosen: uploading (progress 0..1), attached, or refused. */
export type PendingFile = {
  key: string;
  name: string;
  type: string;
  size: number;
  status: "uploading" | "done" | "failed";
  progress: number;
  /** The server's record once stored: its id is what the message sends. */
  uploaded?: UploadedFile;
  /** Why it is not attached: the server's 4xx message (or the same words from the browser's pre-check). */
  error?: string;
};

export type FilesAction =
  | { type: "add"; file: PendingFile }
  | { type: "progress"; key: string; progress: number }
  | { type: "done"; key: string; uploaded: UploadedFile }
  | { type: "failed"; key: string; error: string }
  | { type: "remove"; key: string }
  | { type: "clear" };

export function filesReducer(files: PendingFile[], action: FilesAction): PendingFile[] {
  const update = (key: string, change: Partial<PendingFile>) =>
    files.map((f) => (f.key === key ? { ...f, ...change } : f));
  switch (action.type) {
    case "add":
      return [...files, action.file];
    case "progress":
      return update(action.key, { progress: Math.max(0, Math.min(1, action.progress)) });
    case "done":
      return update(action.key, { status: "done", progress: 1, uploaded: action.uploaded, error: undefined });
    case "failed":
      return update(action.key, { status: "failed", error: action.error });
    case "remove":
      return files.filter((f) => f.key !== action.key);
    case "clear":
      return [];
  }
}

/** The files a message would carry: only the attached ones; refused files stay on screen but are never sent. */
export const attachedFiles = (files: PendingFile[]): UploadedFile[] =>
  files.flatMap((f) => (f.status === "done" && f.uploaded ? [f.uploaded] : []));

export const isUploading = (files: PendingFile[]) => files.some((f) => f.status === "uploading");

/** How many more files fit on one message: refused files do not count. */
export const roomFor = (files: PendingFile[]) =>
  Math.max(0, MAX_ATTACHMENTS - files.filter((f) => f.status !== "failed").length);

/** The URL a stored file is read back from (its thumbnail, its download). */
export const fileUrl = (id: string) => `/api/agent/files/${encodeURIComponent(id)}`;
