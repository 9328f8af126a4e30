/**
 * Request body limits, one place for /v1 (the Next app and the lean server) and the app's own JSON routes: a
 * size limit enforced while the body streams in (so a huge or endless body is refused without being buffered)
 * and a JSON nesting limit checked on the text before anything parses or walks it recursively.
 */

/** /v1 bodies: `MAX_BODY_BYTES`, default 10 MB (long conversations with tool schemas fit). */
export const DEFAULT_API_BODY_BYTES = 10 * 1024 * 1024;
/** The app's own JSON routes (sign-in, settings, a drawer message): `MAX_APP_BODY_BYTES`, default 1 MB. */
export const DEFAULT_APP_BODY_BYTES = 1024 * 1024;
/** Nesting of objects and arrays: `MAX_JSON_DEPTH`, default 64 (real tool schemas nest a dozen levels). */
export const DEFAULT_JSON_DEPTH = 64;

export type BodyLimits = { maxBytes: number; maxDepth: number };

type Env = Record<string, string | undefined>;

const positiveInt = (value: string | undefined, fallback: number) => {
  const n = Number(value);
  return value?.trim() && Number.isSafeInteger(n) && n > 0 ? n : fallback;
};

/** An audio file for /v1/audio/transcriptions and translations: `MAX_AUDIO_FILE_BYTES`, default 25 MB (OpenAI's). */
export const DEFAULT_AUDIO_FILE_BYTES = 25 * 1024 * 1024;
/** A whole /v1/images/edits body (every image and mask): `MAX_IMAGE_EDIT_BYTES`, default 50 MB (OpenAI's). */
export const DEFAULT_IMAGE_EDIT_BYTES = 50 * 1024 * 1024;
/** What an audio upload's other fields (model, prompt, language…) may add to its file's size. */
export const MULTIPART_FIELDS_ALLOWANCE = 1024 * 1024;

export type ApiBodyLimits = BodyLimits & { audioFileBytes: number; imageEditBytes: number };

export const apiBodyLimits = (env: Env = process.env): ApiBodyLimits => ({
  maxBytes: positiveInt(env.MAX_BODY_BYTES, DEFAULT_API_BODY_BYTES),
  maxDepth: positiveInt(env.MAX_JSON_DEPTH, DEFAULT_JSON_DEPTH),
  audioFileBytes: positiveInt(env.MAX_AUDIO_FILE_BYTES, DEFAULT_AUDIO_FILE_BYTES),
  imageEditBytes: positiveInt(env.MAX_IMAGE_EDIT_BYTES, DEFAULT_IMAGE_EDIT_BYTES),
});

/**
 * The body limit of a /v1 path: an audio upload's file limit and room for its fields, an image edit's total,
 * and MAX_BODY_BYTES for everything else (JSON).
 */
export function apiBodyLimitFor(path: string, limits: ApiBodyLimits = apiBodyLimits()): number {
  if (/\/v1\/audio\/(transcriptions|translations)$/.test(path))
    return limits.audioFileBytes + MULTIPART_FIELDS_ALLOWANCE;
  if (/\/v1\/images\/edits$/.test(path)) return limits.imageEditBytes;
  return limits.maxBytes;
}

const UPLOAD_PATH = /\/v1\/(?:audio\/(?:transcriptions|translations)|images\/edits)$/;

/**
 * Whether a request's body is an upload that the handler reads as it streams in (a multipart POST to a /v1 upload
 * path) rather than one the transport reads whole first.
 */
export function streamsUpload(method: string, path: string, contentType: string | null | undefined): boolean {
  return method === "POST" && UPLOAD_PATH.test(path) && /^multipart\/form-data/i.test(contentType ?? "");
}

export const appBodyLimits = (env: Env = process.env): BodyLimits => ({
  maxBytes: positiveInt(env.MAX_APP_BODY_BYTES, DEFAULT_APP_BODY_BYTES),
  maxDepth: positiveInt(env.MAX_JSON_DEPTH, DEFAULT_JSON_DEPTH),
});

/** A body refused by a limit, or not JSON: `status` 413 (too large) or 400, `message` safe to show. */
export class BodyRefused extends Error {
  constructor(
    readonly reason: "too_large" | "too_deep" | "invalid_json",
    message: string,
    /** The field it is about, when not the whole body (e.g. a tool call's arguments). */
    readonly param: string | null = null,
  ) {
    super(message);
  }
  get status(): 400 | 413 {
    return this.reason === "too_large" ? 413 : 400;
  }
}

export const megabytes = (bytes: number) =>
  bytes >= 1024 * 1024 ? `${+(bytes / 1024 / 1024).toFixed(2)} MB` : `${bytes} bytes`;

export const tooLarge = (maxBytes: number) =>
  new BodyRefused("too_large", `the request body is larger than the limit of ${megabytes(maxBytes)}`);

/** Whether a declared Content-Length already exceeds the limit (refused before a byte is read). */
export function declaredTooLarge(contentLength: string | null | undefined, maxBytes: number): boolean {
  const n = Number(contentLength);
  return !!contentLength && Number.isFinite(n) && n > maxBytes;
}

/**
 * Reads a web Request's body as text, refusing it (BodyRefused, 413) as soon as it passes `maxBytes`: by its
 * Content-Length first, then by counting while it streams. The rest is left unread, never buffered; the stream
 * is not cancelled, because under Next that destroys the socket before the 413 can be sent.
 */
export async function readBodyText(req: Request, maxBytes: number): Promise<string> {
  const bytes = await readBytesWithin(req, maxBytes);
  if (!bytes) throw tooLarge(maxBytes);
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8");
}

/** A web Request's body as bytes, or null as soon as it passes `maxBytes` (the rest is left unread, as above). */
export async function readBytesWithin(req: Request, maxBytes: number): Promise<Uint8Array | null> {
  if (declaredTooLarge(req.headers.get("content-length"), maxBytes)) return null;
  if (!req.body) return new Uint8Array(0);
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) return null;
      chunks.push(value);
    }
  } finally {
    reader.releaseLock();
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total);
}

/**
 * The deepest nesting of objects and arrays in a JSON text, counted without recursion and without parsing
 * (a scan that skips strings), stopping once it passes `limit`.
 */
export function jsonDepthExceeds(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // a backslash escapes the next character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > limit) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

export const tooDeep = (maxDepth: number, where = "the request body", param: string | null = null) =>
  new BodyRefused("too_deep", `${where} nests objects and arrays more than ${maxDepth} levels deep`, param);

/** Parses JSON text after checking its depth: BodyRefused (400) when it is too deep or not JSON. */
export function parseJsonWithin(text: string, maxDepth: number, where?: string): unknown {
  if (jsonDepthExceeds(text, maxDepth)) throw tooDeep(maxDepth, where);
  try {
    return JSON.parse(text);
  } catch {
    throw new BodyRefused("invalid_json", `${where ?? "the request body"} must be JSON`);
  }
}

/** Reads and parses a JSON body within the limits: BodyRefused with status 413 or 400 otherwise. */
export async function readJsonWithin(req: Request, limits: BodyLimits): Promise<unknown> {
  return parseJsonWithin(await readBodyText(req, limits.maxBytes), limits.maxDepth);
}
