import { randomBytes } from "node:crypto";

/** One part of a multipart/form-data upload, in the order it came: a text field, or a file and its bytes. */
export type MultipartPart =
  | { name: string; value: string }
  | { name: string; filename: string; contentType: string; data: Uint8Array };

export const isFilePart = (part: MultipartPart): part is Extract<MultipartPart, { data: Uint8Array }> =>
  "data" in part;

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
 * what the caller sent (the boundary is the encoding's, not the request's).
 */
export function encodeMultipart(parts: MultipartPart[]): { body: Buffer; contentType: string } {
  const boundary = `----tollgate${randomBytes(12).toString("hex")}`;
  const chunks: Buffer[] = [];
  for (const part of parts) {
    let head = `--${boundary}\r\nContent-Disposition: form-data; name=${quoted(part.name)}`;
    if (isFilePart(part)) {
      head += `; filename=${quoted(part.filename)}\r\nContent-Type: ${part.contentType}\r\n\r\n`;
      chunks.push(
        Buffer.from(head),
        Buffer.from(part.data.buffer, part.data.byteOffset, part.data.byteLength),
      );
    } else {
      chunks.push(Buffer.from(`${head}\r\n\r\n`), Buffer.from(part.value, "utf8"));
    }
    chunks.push(Buffer.from("\r\n"));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}
