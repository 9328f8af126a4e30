// Files in the composer: what may be attached, how big, and the state of each upload. Pure, tested in node.

import { MAX_ATTACHMENTS, type UploadedFile } from "@/features/drawer/contracts";
import {
  claimedType,
  FILE_ACCEPT,
  formatBytes,
  isImageType,
  maxBytesFor,
  tooBigMessage,
  unsupportedFileMessage,
} from "@/features/drawer/file-types";

/** What the file picker offers, the types the server takes, and sizes as its messages write them. */
export { FILE_ACCEPT as ACCEPT, formatBytes, isImageType };

/**
 * The browser's quick check before an upload, in the server's own words (features/drawer/file-types.ts): a type
 * it does not take, or a file over its type's limit, never leaves the machine. The server checks again and
 * decides (what the content really is, text that is not text, the tenant's quota).
 */
export function precheck(file: { name: string; type: string; size: number }): string | null {
  const type = claimedType(file.name, file.type);
  if (!type) return unsupportedFileMessage(file.name);
  return file.size > maxBytesFor(type) ? tooBigMessage(file.name, file.size, type) : null;
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
