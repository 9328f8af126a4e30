// The fake OpenAI images and audio routes, on OpenAI's wire: POST /v1/images/generations (JSON) and
// /v1/images/edits (multipart), /v1/audio/transcriptions and /v1/audio/translations (multipart: a file and its
// fields; json, text, srt, vtt or verbose_json answers with the audio's duration), /v1/audio/speech (JSON in, audio
// bytes out with the format's content type). Uploads are parsed as OpenAI parses them (busboy); what was parsed
// is kept on the request (`form`) for tests to compare with what the client sent.
import type { ServerResponse } from "node:http";
import busboy from "busboy";
import { fakeId, type RecordedRequest, type RenderableReply, sendJson } from "./http";
import { openaiHeaders, sendOpenAIError } from "./openai-wire";

/** One parsed part of an upload: a field's value, or a file's name, type and exact bytes. */
export type FormPart =
  | { name: string; value: string }
  | { name: string; filename: string; contentType: string; data: Buffer };

/** The uploads each request carried, by the recorded request. */
export const uploads = new WeakMap<RecordedRequest, FormPart[]>();

/** Bytes a second of the fake's audio takes (16 kHz, 8-bit mono PCM): the duration it reports is size / this. */
export const FAKE_AUDIO_BYTES_PER_SECOND = 16_000;
/** The PNG signature and a few bytes: the fake's image (its bytes are never looked at). */
export const FAKE_PNG = Buffer.from("89504e470d0a1a0a0000000d49484452", "hex");
/** The fake's speech: ID3-tagged bytes, including ones that are not UTF-8 (so a text round trip would break them). */
export const fakeSpeech = (input: string) =>
  Buffer.concat([Buffer.from([0x49, 0x44, 0x33, 0x04, 0x00, 0xff, 0xfe, 0x80]), Buffer.from(input, "utf8")]);

function parseForm(req: RecordedRequest): Promise<FormPart[]> {
  return new Promise((resolve, reject) => {
    const parts: FormPart[] = [];
    const files: Promise<void>[] = [];
    const parser = busboy({
      headers: { "content-type": String(req.headers["content-type"] ?? "") },
      defParamCharset: "utf8",
    });
    parser.on("field", (name, value) => parts.push({ name, value }));
    parser.on("file", (name, stream, info) => {
      const chunks: Buffer[] = [];
      const index = parts.push({ name, value: "" }) - 1;
      files.push(
        new Promise((done) => {
          stream.on("data", (c: Buffer) => chunks.push(c));
          stream.on("close", () => {
            parts[index] = {
              name,
              filename: info.filename ?? "",
              contentType: info.mimeType,
              data: Buffer.concat(chunks),
            };
            done();
          });
        }),
      );
    });
    parser.on("error", reject);
    parser.on("close", () => void Promise.all(files).then(() => resolve(parts), reject));
    parser.end(req.rawBytes);
  });
}

const field = (parts: FormPart[], name: string) => {
  const part = parts.find((p) => p.name === name && "value" in p);
  return part && "value" in part ? part.value : undefined;
};
const file = (parts: FormPart[], name: string) =>
  parts.find((p): p is Extract<FormPart, { data: Buffer }> => p.name === name && "data" in p);

function imagesAnswer(
  model: string,
  prompt: string,
  n: number,
  format: string | undefined,
  size?: string,
  quality?: string,
) {
  const gptImage = model.startsWith("gpt-image");
  const data = Array.from({ length: n }, () =>
    gptImage || format === "b64_json"
      ? { b64_json: FAKE_PNG.toString("base64") }
      : { url: `https://images.example/${fakeId("img-")}.png`, revised_prompt: prompt },
  );
  if (!gptImage) return { created: Math.floor(Date.now() / 1000), data };
  // gpt-image-1 reports its tokens: the prompt's, and ~1,056 output tokens a medium 1024x1024 image.
  const input = Math.ceil(prompt.length / 4);
  return {
    created: Math.floor(Date.now() / 1000),
    data,
    background: "opaque",
    output_format: "png",
    size: size && size !== "auto" ? size : "1024x1024",
    quality: quality && quality !== "auto" ? quality : "medium",
    usage: {
      input_tokens: input,
      input_tokens_details: { image_tokens: 0, text_tokens: input },
      output_tokens: 1056 * n,
      total_tokens: input + 1056 * n,
    },
  };
}

export async function renderImageGenerations(
  reply: RenderableReply,
  req: RecordedRequest,
  res: ServerResponse,
): Promise<void> {
  if (reply.kind === "error") return sendOpenAIError(res, reply);
  const { model, prompt, n, response_format, size, quality } = req.body as Record<string, string | number>;
  if (typeof prompt !== "string" || !prompt)
    return sendOpenAIError(res, { status: 400, message: "Missing required parameter: 'prompt'." });
  const answer = imagesAnswer(
    String(model ?? "dall-e-2"),
    prompt,
    Number(n ?? 1),
    response_format as string,
    size as string,
    quality as string,
  );
  sendJson(res, 200, answer, openaiHeaders());
}

export async function renderImageEdits(
  reply: RenderableReply,
  req: RecordedRequest,
  res: ServerResponse,
): Promise<void> {
  const parts = await parseForm(req).catch(() => null);
  if (!parts) return sendOpenAIError(res, { status: 400, message: "Could not parse multipart form" });
  uploads.set(req, parts);
  if (reply.kind === "error") return sendOpenAIError(res, reply);
  const prompt = field(parts, "prompt");
  if (!prompt) return sendOpenAIError(res, { status: 400, message: "Missing required parameter: 'prompt'." });
  if (!file(parts, "image") && !file(parts, "image[]"))
    return sendOpenAIError(res, { status: 400, message: "Missing required parameter: 'image'." });
  const answer = imagesAnswer(
    field(parts, "model") ?? "dall-e-2",
    prompt,
    Number(field(parts, "n") ?? 1),
    field(parts, "response_format"),
    field(parts, "size"),
    field(parts, "quality"),
  );
  sendJson(res, 200, answer, openaiHeaders());
}

function transcriber(task: "transcribe" | "translate") {
  return async (reply: RenderableReply, req: RecordedRequest, res: ServerResponse): Promise<void> => {
    const parts = await parseForm(req).catch(() => null);
    if (!parts) return sendOpenAIError(res, { status: 400, message: "Could not parse multipart form" });
    uploads.set(req, parts);
    if (reply.kind === "error") return sendOpenAIError(res, reply);
    const audio = file(parts, "file");
    if (!audio) return sendOpenAIError(res, { status: 400, message: "Missing required parameter: 'file'." });
    const model = field(parts, "model") ?? "";
    const duration = audio.data.length / FAKE_AUDIO_BYTES_PER_SECOND;
    const text = `Transcript of ${audio.filename}.`;
    const format = field(parts, "response_format") ?? "json";
    if (format === "text" || format === "srt" || format === "vtt") {
      const body =
        format === "text"
          ? `${text}\n`
          : format === "srt"
            ? `1\n00:00:00,000 --> 00:00:0${Math.min(9, Math.ceil(duration))},000\n${text}\n\n`
            : `WEBVTT\n\n00:00:00.000 --> 00:00:0${Math.min(9, Math.ceil(duration))}.000\n${text}\n\n`;
      res.writeHead(200, { "content-type": "text/plain; charset=utf-8", ...openaiHeaders() });
      return void res.end(body);
    }
    const tokens = model.startsWith("gpt-4o");
    const usage = tokens
      ? {
          type: "tokens",
          input_tokens: Math.ceil(duration * 10),
          input_token_details: { text_tokens: 0, audio_tokens: Math.ceil(duration * 10) },
          output_tokens: Math.ceil(text.length / 4),
          total_tokens: Math.ceil(duration * 10) + Math.ceil(text.length / 4),
        }
      : { type: "duration", seconds: Math.ceil(duration) };
    if (format === "verbose_json")
      return sendJson(
        res,
        200,
        {
          task,
          language: task === "translate" ? "english" : (field(parts, "language") ?? "english"),
          duration,
          text,
          segments: [
            {
              id: 0,
              seek: 0,
              start: 0,
              end: duration,
              text,
              tokens: [],
              temperature: 0,
              avg_logprob: -0.2,
              compression_ratio: 1,
              no_speech_prob: 0.01,
            },
          ],
          ...(task === "transcribe" ? { usage } : {}),
        },
        openaiHeaders(),
      );
    // A translation's json is only its text; a transcription's also says what it billed.
    sendJson(res, 200, task === "translate" ? { text } : { text, usage }, openaiHeaders());
  };
}

export const renderTranscriptions = transcriber("transcribe");
export const renderTranslations = transcriber("translate");

const AUDIO_TYPES: Record<string, string> = {
  mp3: "audio/mpeg",
  opus: "audio/opus",
  aac: "audio/aac",
  flac: "audio/flac",
  wav: "audio/wav",
  pcm: "audio/pcm",
};

export async function renderSpeech(
  reply: RenderableReply,
  req: RecordedRequest,
  res: ServerResponse,
): Promise<void> {
  if (reply.kind === "error") return sendOpenAIError(res, reply);
  const { input, voice, response_format } = req.body as Record<string, string>;
  if (typeof input !== "string" || !input)
    return sendOpenAIError(res, { status: 400, message: "Missing required parameter: 'input'." });
  if (!voice) return sendOpenAIError(res, { status: 400, message: "Missing required parameter: 'voice'." });
  const audio = fakeSpeech(input);
  res.writeHead(200, {
    "content-type": AUDIO_TYPES[response_format ?? "mp3"] ?? "audio/mpeg",
    "content-length": audio.length,
    ...openaiHeaders(),
  });
  res.end(audio);
}
