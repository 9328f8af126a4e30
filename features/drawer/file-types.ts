// What the drawer's composer may attach (POST /api/agent/files): the accepted types, their size limits, and how a
// file is recognised by its content rather than by what its name or the browser says. Browser-safe.
import { sniffImageType } from "@/lib/core/media/image-type";
import type { ImagePart } from "@/lib/gateway/types";

export type ImageType = ImagePart["mediaType"];
export const IMAGE_TYPES: readonly ImageType[] = ["image/png", "image/jpeg", "image/webp", "image/gif"];
export const TEXT_TYPES = ["text/plain", "text/markdown", "text/csv", "application/json"] as const;
export type TextType = (typeof TEXT_TYPES)[number];
export const PDF_TYPE = "application/pdf";
export type FileType = ImageType | TextType | typeof PDF_TYPE;
export const ACCEPTED_FILE_TYPES: readonly FileType[] = [...IMAGE_TYPES, ...TEXT_TYPES, PDF_TYPE];

/** An image may be at most 5 MB; a text, Markdown, CSV, JSON or PDF file at most 10 MB. */
export const IMAGE_MAX_BYTES = 5 * 1024 * 1024;
export const DOCUMENT_MAX_BYTES = 10 * 1024 * 1024;

/** For a file picker's `accept` attribute. */
export const FILE_ACCEPT = [...ACCEPTED_FILE_TYPES, ".md", ".markdown", ".csv", ".json", ".txt"].join(",");

export const isImageType = (type: string): type is ImageType =>
  (IMAGE_TYPES as readonly string[]).includes(type);

export const maxBytesFor = (type: FileType): number =>
  isImageType(type) ? IMAGE_MAX_BYTES : DOCUMENT_MAX_BYTES;

import { formatBytes } from "@/lib/core/format/number";

export { formatBytes };

const startsWith = (bytes: Uint8Array, signature: number[], at = 0) =>
  bytes.length >= at + signature.length && signature.every((b, i) => bytes[at + i] === b);
const ascii = (text: string) => [...text].map((c) => c.charCodeAt(0));

const PDF_MAGIC = ascii("%PDF-");

/** The image or PDF type a file's first bytes say it is (its magic number, see sniffImageType, or `%PDF-`), or null. */
export function sniffBinaryType(bytes: Uint8Array): ImageType | typeof PDF_TYPE | null {
  return sniffImageType(bytes) ?? (startsWith(bytes, PDF_MAGIC) ? PDF_TYPE : null);
}

/** PDF readers accept the header anywhere in the first 1,024 bytes; only a file that says it is a PDF gets that. */
function pdfHeaderNearStart(bytes: Uint8Array): boolean {
  const head = bytes.subarray(0, 1024);
  for (let i = 0; i + PDF_MAGIC.length <= head.length; i++) if (startsWith(head, PDF_MAGIC, i)) return true;
  return false;
}

const BY_EXTENSION: Record<string, FileType> = {
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  webp: "image/webp",
  gif: "image/gif",
  pdf: PDF_TYPE,
  txt: "text/plain",
  text: "text/plain",
  log: "text/plain",
  md: "text/markdown",
  markdown: "text/markdown",
  csv: "text/csv",
  json: "application/json",
};
// What browsers and systems declare for the same files under other names.
const DECLARED_ALIASES: Record<string, FileType> = {
  "text/x-markdown": "text/markdown",
  "image/jpg": "image/jpeg",
  "application/x-pdf": PDF_TYPE,
  "text/json": "application/json",
};

/** The type a file claims, by its name's extension first, then by its declared type; null when neither is ours. */
export function claimedType(name: string, declared: string): FileType | null {
  const extension = name.includes(".") ? name.split(".").pop()!.toLowerCase() : "";
  const byName = BY_EXTENSION[extension];
  if (byName) return byName;
  const type = declared.split(";")[0]!.trim().toLowerCase();
  if ((ACCEPTED_FILE_TYPES as readonly string[]).includes(type)) return type as FileType;
  return DECLARED_ALIASES[type] ?? null;
}

export type Recognised =
  | { ok: true; type: FileType }
  | { ok: false; reason: "mismatch" | "unsupported"; message: string };

const LABEL: Record<FileType, string> = {
  "image/png": "a PNG image",
  "image/jpeg": "a JPEG image",
  "image/webp": "a WebP image",
  "image/gif": "a GIF image",
  "application/pdf": "a PDF",
  "text/plain": "text",
  "text/markdown": "Markdown",
  "text/csv": "CSV",
  "application/json": "JSON",
};

export const ACCEPTED_DESCRIPTION = "PNG, JPEG, WebP or GIF images; text, Markdown, CSV, JSON or PDF files";

/** Why a file of a type the assistant does not take is refused: the server's words, and the composer's pre-check. */
export const unsupportedFileMessage = (name: string) =>
  `${name} is not a file type the assistant takes; attach ${ACCEPTED_DESCRIPTION}`;

/** Why a file over its type's limit is refused: the server's words, and the composer's pre-check. */
export const tooBigMessage = (name: string, size: number, type: FileType) =>
  `${name} is ${formatBytes(size)}; ${isImageType(type) ? "images" : "text and PDF files"} may be at most ${formatBytes(maxBytesFor(type))}`;

/**
 * What a file is, by its content: an image or a PDF by its magic bytes (whatever its name says), else one of the
 * text types it claims (its bytes are checked as text on the server). A file that claims to be an image or a PDF
 * but whose content is not one is a mismatch; anything else is unsupported.
 */
export function recogniseFile(name: string, declared: string, bytes: Uint8Array): Recognised {
  const sniffed = sniffBinaryType(bytes);
  if (sniffed) return { ok: true, type: sniffed };
  const claimed = claimedType(name, declared);
  if (claimed === PDF_TYPE && pdfHeaderNearStart(bytes)) return { ok: true, type: PDF_TYPE };
  if (claimed && (isImageType(claimed) || claimed === PDF_TYPE))
    return {
      ok: false,
      reason: "mismatch",
      message: `${name} is not ${LABEL[claimed]}: its content does not match its type`,
    };
  if (claimed) return { ok: true, type: claimed };
  return {
    ok: false,
    reason: "unsupported",
    message: unsupportedFileMessage(name),
  };
}
