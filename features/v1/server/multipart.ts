import busboy from "busboy";
import type { WireFormat } from "@/lib/gateway/forward/formats";
import type { MultipartPart } from "@/lib/gateway/forward/multipart";
import type { Json } from "@/lib/gateway/translate/types";
import { type ApiAnswer, type ApiRequest, headerOf } from "@/lib/http/exchange";
import { apiBodyLimits, megabytes } from "@/lib/http/limits";
import type { Dialect } from "./dialects";

/** A read upload: its parts in order (what goes upstream) and its fields as an object (what the checks read). */
export type Upload = { parts: MultipartPart[]; body: Json };

/** Fields of one upload at most, and one text field's size at most (a long prompt fits many times over). */
const MAX_FIELDS = 64;
const MAX_FIELD_BYTES = 256 * 1024;
const MAX_FILES = 16;

/**
 * Reads a multipart/form-data upload (image edits, audio) with busboy, within the limits: each audio file at
 * most `MAX_AUDIO_FILE_BYTES` (413), the whole body already bounded as it came in. A body that is not
 * multipart, or is malformed, is a 400 naming the problem. Files keep their bytes exactly; in `body` a file is
 * described by its name, type and size, so nothing downstream (the audit, the budget) reads its bytes.
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
  try {
    return { upload: await parse(req.body ?? new Uint8Array(0), contentType, fileLimit) };
  } catch (error) {
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

function parse(bytes: Uint8Array, contentType: string, fileLimit: number): Promise<Upload> {
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
      const chunks: Buffer[] = [];
      parts.push(
        new Promise((done) => {
          stream.on("data", (chunk: Buffer) => chunks.push(chunk));
          // A form cut short ends its file with an error; the parser's own error refuses the upload.
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
          stream.on("close", () =>
            done({
              name,
              filename: info.filename ?? name,
              contentType: info.mimeType || "application/octet-stream",
              data: Buffer.concat(chunks),
            }),
          );
        }),
      );
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
    parser.end(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  });
}

/**
 * The fields as an object, files described (`{filename, contentType, bytes}`), a repeated name (`image[]`) as an
 * array under its name without the brackets; numbers stay strings, as a form sends them.
 */
function fieldsOf(parts: MultipartPart[]): Json {
  // No prototype: a field named __proto__ is a field, not the object's prototype.
  const body: Json = Object.create(null);
  for (const part of parts) {
    const value =
      "data" in part
        ? { filename: part.filename, contentType: part.contentType, bytes: part.data.byteLength }
        : part.value;
    const many = part.name.endsWith("[]");
    const name = many ? part.name.slice(0, -2) : part.name;
    const had = body[name];
    if (had === undefined) body[name] = many ? [value] : value;
    else body[name] = Array.isArray(had) ? [...had, value] : [had, value];
  }
  return body;
}
