import { randomBytes } from "node:crypto";
import { Readable } from "node:stream";
import type { StreamedBody } from "../adapters/node-fetch";

/**
 * One file of an upload: its bytes are not held here but opened as a stream each time they are sent (the handler
 * keeps them in a temporary file, a test in memory), so a fallback to the next candidate sends them again.
 */
export type FilePart = {
  name: string;
  filename: string;
  contentType: string;
  size: number;
  open: () => Readable;
};

/** One part of a multipart/form-data upload, in the order it came: a text field, or a file. */
export type MultipartPart = { name: string; value: string } | FilePart;

export const isFilePart = (part: MultipartPart): part is FilePart => "open" in part;

/** A file part whose bytes are in memory (tests, and anything small built in-process). */
export const bytesPart = (
  name: string,
  filename: string,
  contentType: string,
  data: Uint8Array,
): FilePart => ({
  name,
  filename,
  contentType,
  size: data.byteLength,
  open: () => Readable.from([Buffer.from(data.buffer, data.byteOffset, data.byteLength)]),
});

/** The caller's parts with `model` set to the candidate's: every other field and every file's bytes unchanged. */
export function withModel(parts: MultipartPart[], model: string): MultipartPart[] {
  return parts.map((part) =>
    part.name === "model" && !isFilePart(part) ? { name: "model", value: model } : part,
  );
}

/** Quotes a name or filename for a Content-Disposition header (quotes and line breaks escaped, as browsers do). */
const quoted = (text: string) => `"${text.replace(/"/g, "%22").replace(/\r/g, "%0D").replace(/\n/g, "%0A")}"`;

/**
 * The parts as a multipart/form-data body, in their order, under a fresh boundary: what the provider reads is
 * what the caller sent (the boundary is the encoding's, not the request's). The body is streamed, each file read
 * from its source as it goes out, with its length known in advance (sent as Content-Length, as the SDKs do).
 */
export function encodeMultipart(parts: MultipartPart[]): StreamedBody & { contentType: string } {
  const boundary = `----tollgate${randomBytes(12).toString("hex")}`;
  // The text around the files, computed once: pieces are Buffers or the file parts between them.
  const pieces: (Buffer | FilePart)[] = [];
  for (const part of parts) {
    const head = `--${boundary}\r\nContent-Disposition: form-data; name=${quoted(part.name)}`;
    if (isFilePart(part)) {
      pieces.push(
        Buffer.from(
          `${head}; filename=${quoted(part.filename)}\r\nContent-Type: ${part.contentType}\r\n\r\n`,
        ),
        part,
        Buffer.from("\r\n"),
      );
    } else pieces.push(Buffer.from(`${head}\r\n\r\n${part.value}\r\n`, "utf8"));
  }
  pieces.push(Buffer.from(`--${boundary}--\r\n`));
  const length = pieces.reduce((sum, piece) => sum + (Buffer.isBuffer(piece) ? piece.length : piece.size), 0);
  async function* chunks(): AsyncGenerator<Buffer> {
    for (const piece of pieces) {
      if (Buffer.isBuffer(piece)) yield piece;
      else yield* piece.open() as AsyncIterable<Buffer>;
    }
  }
  return {
    length,
    open: () => Readable.from(chunks()),
    contentType: `multipart/form-data; boundary=${boundary}`,
  };
}
