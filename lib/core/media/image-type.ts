/**
 * The image types a model may be sent (PNG, JPEG, GIF, WebP) and how to tell them by their first bytes: what the
 * drawer's uploads and the agent's tool messages both check, whatever a name, a header or a data URL says.
 * Browser-safe.
 */
export type ImageMediaType = "image/png" | "image/jpeg" | "image/webp" | "image/gif";
export const IMAGE_MEDIA_TYPES: readonly ImageMediaType[] = [
  "image/png",
  "image/jpeg",
  "image/webp",
  "image/gif",
];

export const isImageMediaType = (type: string): type is ImageMediaType =>
  (IMAGE_MEDIA_TYPES as readonly string[]).includes(type);

const startsWith = (bytes: Uint8Array, signature: number[], at = 0) =>
  bytes.length >= at + signature.length && signature.every((b, i) => bytes[at + i] === b);
const ascii = (text: string) => [...text].map((c) => c.charCodeAt(0));

/** PNG's 8-byte signature, JPEG's FF D8 FF, GIF87a/GIF89a, a RIFF container of WEBP; null for anything else. */
export function sniffImageType(bytes: Uint8Array): ImageMediaType | null {
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return "image/png";
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return "image/jpeg";
  if (startsWith(bytes, ascii("GIF87a")) || startsWith(bytes, ascii("GIF89a"))) return "image/gif";
  if (startsWith(bytes, ascii("RIFF")) && startsWith(bytes, ascii("WEBP"), 8)) return "image/webp";
  return null;
}
