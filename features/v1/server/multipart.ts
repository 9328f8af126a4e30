import { once } from "node:events";
import { createReadStream, createWriteStream } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import busboy from "busboy";
import type { WireFormat } from "@/lib/gateway/forward/formats";
import { isFilePart, type MultipartPart } from "@/lib/gateway/forward/multipart";
import type { Json } from "@/lib/gateway/translate/types";
import { type ApiAnswer, type ApiRequest, headerOf } from "@/lib/http/exchange";
import { apiBodyLimits, megabytes } from "@/lib/http/limits";
import type { Dialect } from "./dialects";

/**
 * A read upload: its parts in order (what goes upstream), its fields as an object (what the checks read), and
 * `dispose`, which removes its spooled files once the call is over.
 */
export type Upload = { parts: MultipartPart[]; body: Json; dispose: () => Promise<void> };

/** Fields of one upload at most, and one text field's size at most (a long prompt fits many times over). */
const MAX_FIELDS = 64;
const MAX_FIELD_BYTES = 256 * 1024;
const MAX_FILES = 16;

/**
 * Reads a multipart/form-data upload (image edits, audio) with busboy as it streams in, within the limits: the
 * whole body at most the path's limit, each audio file at most `MAX_AUDIO_FILE_BYTES` (413). Files are written to a
 * temporary directory as they arrive (under the OS's, `TMPDIR`), so an upload is never held whole in memory; they
 * cannot go upstream as they arrive because the route is only known from the `model` field, which a form may send
 * after its file. A body that is not multipart, is malformed, or is cut short is a 400 naming the problem. Files keep
 * their bytes exactly; in `body` a file is described by its name, type and size, so nothing downstream (the audit,
 * the budget) reads its bytes.
 */
export async function readUpload(
  req: ApiRequest,
  format: WireFormat,
  dialect: Dialect,
): Promise<{ upload: Upload; refused?: undefined } | { refused: ApiAnswer }> {
  const contentType = headerOf(req, "content-type") ?? "";
  if (!/^multipart\/form-data\s*;.*boundary=/i.test(contentType))
    return {
      refused: dialect.error(
        415,
        `This endpoint takes multipart/form-data (a file and its fields), not ${contentType.split(";")[0] || "a body without a content type"}.`,
        "invalid_request",
      ),
    };
  const fileLimit =
    format === "openai-image-edits" ? apiBodyLimits().imageEditBytes : apiBodyLimits().audioFileBytes;
  // A transport that streams uploads hands over the body unread; one that read it whole (tests) gives its bytes.
  const source = req.upload ?? { chunks: req.body ? [req.body] : [], maxBytes: Number.POSITIVE_INFINITY };
  const spool = new Spool();
  try {
    const read = await parse(source, contentType, fileLimit, spool);
    return { upload: { ...read, dispose: () => spool.remove() } };
  } catch (error) {
    await spool.remove();
    if (!(error instanceof UploadRefused)) throw error;
    return { refused: dialect.error(error.status, error.message, error.code, error.param) };
  }
}

class UploadRefused extends Error {
  constructor(
    readonly status: 400 | 413,
    message: string,
    readonly code: string,
    readonly param: string | null = null,
  ) {
    super(message);
  }
}

/** The temporary files of one upload, in a directory of its own made when the first file arrives. */
class Spool {
  private dir: Promise<string> | undefined;
  private files = 0;

  async path(): Promise<string> {
    this.dir ??= mkdtemp(path.join(os.tmpdir(), "tollgate-upload-"));
    return path.join(await this.dir, String(this.files++));
  }

  async remove(): Promise<void> {
    const dir = this.dir;
    this.dir = undefined;
    if (dir) await rm(await dir, { recursive: true, force: true }).catch(() => undefined);
  }
}

type Source = { chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>; maxBytes: number };

function parse(
  source: Source,
  contentType: string,
  fileLimit: number,
  spool: Spool,
): Promise<Omit<Upload, "dispose">> {
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: { "content-type": contentType },
        // Filenames as UTF-8 (what clients send), not busboy's default latin1, so they go upstream unchanged.
        defParamCharset: "utf8",
        limits: { fileSize: fileLimit, files: MAX_FILES, fields: MAX_FIELDS, fieldSize: MAX_FIELD_BYTES },
      });
    } catch (error) {
      return reject(
        new UploadRefused(400, `Malformed multipart body: ${(error as Error).message}.`, "invalid_multipart"),
      );
    }
    const parts: (MultipartPart | Promise<MultipartPart>)[] = [];
    let refused: UploadRefused | undefined;
    const refuse = (e: UploadRefused) => {
      refused ??= e;
    };
    parser.on("field", (name, value, info) => {
      if (info.valueTruncated)
        refuse(
          new UploadRefused(
            413,
            `The field ${name} is larger than ${megabytes(MAX_FIELD_BYTES)}.`,
            "request_too_large",
            name,
          ),
        );
      parts.push({ name, value });
    });
    parser.on("file", (name, stream, info) => {
      // A form cut short ends its file with an error (maybe before the file is piped to disk); the parser's own
      // error refuses the upload.
      stream.on("error", () => undefined);
      stream.on("limit", () =>
        refuse(
          new UploadRefused(
            413,
            `The file ${info.filename ?? name} is larger than the limit of ${megabytes(fileLimit)}.`,
            "request_too_large",
            name,
          ),
        ),
      );
      parts.push(spoolFile(spool, stream, name, info));
    });
    const tooMany = (what: string) => () =>
      refuse(new UploadRefused(400, `The upload has too many ${what}.`, "invalid_multipart"));
    parser.on("filesLimit", tooMany("files"));
    parser.on("fieldsLimit", tooMany("fields"));
    parser.on("error", (error: Error) =>
      reject(new UploadRefused(400, `Malformed multipart body: ${error.message}.`, "invalid_multipart")),
    );
    parser.on("close", () => {
      if (refused) return reject(refused);
      Promise.all(parts).then((all) => resolve({ parts: all, body: fieldsOf(all) }), reject);
    });
    feed(source, parser, () => refused).then((stop) => {
      if (stop) reject(stop);
    }, reject);
  });
}

/**
 * Writes the body into the parser as it arrives, waiting whenever the parser (and so the file being written) is
 * behind. Stops at the first refusal (answered without reading the rest) or past the body's limit (413).
 */
async function feed(
  source: Source,
  parser: busboy.Busboy,
  refusedYet: () => UploadRefused | undefined,
): Promise<UploadRefused | undefined> {
  let total = 0;
  try {
    for await (const chunk of source.chunks) {
      total += chunk.byteLength;
      if (total > source.maxBytes)
        return new UploadRefused(
          413,
          `The upload is larger than the limit of ${megabytes(source.maxBytes)}.`,
          "request_too_large",
        );
      const stop = refusedYet();
      if (stop) return stop;
      if (!parser.write(chunk)) await once(parser, "drain");
    }
  } catch (error) {
    if (error instanceof UploadRefused) return error;
    // The caller went away or the connection broke mid-upload: nobody may be left to read this.
    return new UploadRefused(
      400,
      `The upload was cut short: ${(error as Error).message}.`,
      "invalid_multipart",
    );
  }
  parser.end();
  return undefined;
}

/** One file written to the spool as busboy reads it; its part opens the written file each time it is sent. */
async function spoolFile(
  spool: Spool,
  stream: Readable,
  name: string,
  info: busboy.FileInfo,
): Promise<MultipartPart> {
  const file = await spool.path();
  let size = 0;
  stream.on("data", (chunk: Buffer) => {
    size += chunk.length;
  });
  await pipeline(stream, createWriteStream(file)).catch(() => undefined);
  return {
    name,
    filename: info.filename ?? name,
    contentType: info.mimeType || "application/octet-stream",
    size,
    open: () => createReadStream(file),
  };
}

/**
 * The fields as an object, files described (`{filename, contentType, bytes}`), a repeated name (`image[]`) as an
 * array under its name without the brackets; numbers stay strings, as a form sends them.
 */
function fieldsOf(parts: MultipartPart[]): Json {
  // No prototype: a field named __proto__ is a field, not the object's prototype.
  const body: Json = Object.create(null);
  for (const part of parts) {
    const value = isFilePart(part)
      ? { filename: part.filename, contentType: part.contentType, bytes: part.size }
      : part.value;
    const many = part.name.endsWith("[]");
    const name = many ? part.name.slice(0, -2) : part.name;
    const had = body[name];
    if (had === undefined) body[name] = many ? [value] : value;
    else body[name] = Array.isArray(had) ? [...had, value] : [had, value];
  }
  return body;
}
