import "server-only";
import { inflateRawSync } from "node:zlib";
import { AppError } from "@/lib/core/errors/app-error";

/**
 * A small zip reader for skill uploads: the central directory, stored and deflated entries only, no encryption,
 * no zip64. Every entry is inflated with a cap on its output, so a zip bomb stops at the bound instead of
 * filling memory; the caller's limits (file count, per-file and total bytes) are enforced here as the bytes come.
 */

export type ZipLimits = { maxEntries: number; maxFileBytes: number; maxTotalBytes: number };
export type ZipEntry = { path: string; bytes: Buffer };

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;

const bad = (why: string) =>
  new AppError("validation_failed", `the zip file cannot be read: ${why}`, { fields: { file: [why] } });

/** The zip's file entries (folders left out), each decompressed within the limits. */
export function readZip(zip: Buffer, limits: ZipLimits): ZipEntry[] {
  const end = findEnd(zip);
  const count = zip.readUInt16LE(end + 10);
  const cdOffset = zip.readUInt32LE(end + 16);
  if (count === 0xffff || cdOffset === 0xffffffff) throw bad("zip64 archives are not supported");
  // Folder entries count too, so allow some slack over the file limit before refusing by count alone.
  if (count > limits.maxEntries * 2) throw bad(`it has ${count} entries; at most ${limits.maxEntries} files`);
  const entries: ZipEntry[] = [];
  let total = 0;
  let at = cdOffset;
  for (let i = 0; i < count; i++) {
    if (at + 46 > zip.length || zip.readUInt32LE(at) !== CENTRAL)
      throw bad("its central directory is damaged");
    const flags = zip.readUInt16LE(at + 8);
    const method = zip.readUInt16LE(at + 10);
    const compressed = zip.readUInt32LE(at + 20);
    const declared = zip.readUInt32LE(at + 24);
    const nameLength = zip.readUInt16LE(at + 28);
    const next = at + 46 + nameLength + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
    const local = zip.readUInt32LE(at + 42);
    const path = zip.subarray(at + 46, at + 46 + nameLength).toString("utf8");
    at = next;
    if (path.endsWith("/")) continue; // A folder.
    if (flags & 1) throw bad(`"${path}" is encrypted`);
    if (entries.length >= limits.maxEntries) throw bad(`more than ${limits.maxEntries} files`);
    const room = Math.min(limits.maxFileBytes, limits.maxTotalBytes - total);
    if (declared > room) throw bad(tooBig(path, limits));
    if (local + 30 > zip.length || zip.readUInt32LE(local) !== LOCAL) throw bad(`"${path}" is damaged`);
    const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    if (start + compressed > zip.length) throw bad(`"${path}" is cut short`);
    const data = zip.subarray(start, start + compressed);
    let bytes: Buffer;
    if (method === 0) bytes = Buffer.from(data);
    else if (method === 8) {
      try {
        // The declared size may lie: the cap is on what inflating actually produces.
        bytes = inflateRawSync(data, { maxOutputLength: room + 1 });
      } catch (err) {
        if (err instanceof RangeError || (err as { code?: string }).code === "ERR_BUFFER_TOO_LARGE")
          throw bad(tooBig(path, limits));
        throw bad(`"${path}" does not inflate`);
      }
    } else throw bad(`"${path}" uses compression method ${method}; only stored and deflate are read`);
    if (bytes.length > room) throw bad(tooBig(path, limits));
    total += bytes.length;
    entries.push({ path, bytes });
  }
  return entries;
}

const tooBig = (path: string, limits: ZipLimits) =>
  `"${path}" is too big once decompressed (at most ${limits.maxFileBytes} bytes a file, ${limits.maxTotalBytes} in all)`;

function findEnd(zip: Buffer): number {
  // The end record is 22 bytes plus a comment of at most 65,535.
  const lowest = Math.max(0, zip.length - 22 - 0xffff);
  for (let i = zip.length - 22; i >= lowest; i--) if (zip.readUInt32LE(i) === EOCD) return i;
  throw bad("it is not a zip file");
}
