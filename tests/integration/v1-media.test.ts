// /v1 images and audio through the official OpenAI SDK: what the client sends reaches the provider with the same
// fields and the same file bytes (`model` the candidate's), the answer comes back whole (audio byte for byte), and
// each call is a ledger row with its units and exact cost, reserved for at its worst case before it is sent.

import { mkdtemp, readdir, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import OpenAI, { toFile } from "openai";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createApiKey } from "@/features/keys/server/keys";
import { saveLimits } from "@/features/limits/server/settings";
import { parseGatewayConfig } from "@/lib/gateway/config";
import { Gateway } from "@/lib/gateway/gateway";
import type { BatchedGovernanceRecorder } from "@/lib/governance/batched-recorder";
import type { CounterStore } from "@/lib/pipeline/counters";
import { startFakeAnthropic } from "../fakes/anthropic";
import type { FakeProvider } from "../fakes/http";
import { startFakeOpenAI } from "../fakes/openai";
import { FAKE_AUDIO_BYTES_PER_SECOND, type FormPart, fakeSpeech, uploads } from "../fakes/openai-media";
import { useSeededAppDatabase } from "../helpers/app-db";
import { testDbKinds } from "../helpers/db";
import { auditEventsOf, ledgerRowOf, startLeanApi } from "../helpers/lean-api";

/** Audio bytes that are not UTF-8 (a text round trip anywhere would change them): 2.5 s at the fake's rate. */
const AUDIO = Buffer.from(Array.from({ length: 40_000 }, (_, i) => (i * 37 + 128) % 256));
const PNG = Buffer.from(Array.from({ length: 3_000 }, (_, i) => (i * 11 + 200) % 256));
const MASK = Buffer.from(Array.from({ length: 500 }, (_, i) => (i * 7 + 250) % 256));
const SECRET_IN_PROMPT = "sk-proj1234567890abcdefXYZ0987654321";

/** An upload's parts as comparable values: fields by value, files by name, type and bytes. */
const described = (parts: FormPart[]) =>
  parts
    .map((p) =>
      "data" in p
        ? { name: p.name, filename: p.filename, contentType: p.contentType, hex: p.data.toString("hex") }
        : { name: p.name, value: p.value },
    )
    .sort((a, b) => a.name.localeCompare(b.name));

describe.each(testDbKinds)("/v1 images and audio on %s", (kind) => {
  let app: Awaited<ReturnType<typeof useSeededAppDatabase>>;
  let openai: FakeProvider;
  let anthropic: FakeProvider;
  let closeApi: () => Promise<void>;
  let web: (req: Request) => Promise<Response>;
  let root: string;
  let secret: string;
  let acme: string;
  let admin: string;
  let recorder: BatchedGovernanceRecorder;
  let counters: CounterStore;

  beforeAll(async () => {
    app = await useSeededAppDatabase(kind);
    openai = await startFakeOpenAI();
    anthropic = await startFakeAnthropic();
    const gateway = new Gateway(
      parseGatewayConfig(
        {
          providers: {
            oa: { type: "openai", baseUrl: openai.url },
            an: { type: "anthropic", baseUrl: anthropic.url },
            // The same fake under a second name: a fallback from one candidate to the other.
            oa2: { type: "openai", baseUrl: openai.url },
          },
          models: {
            dalle: { candidates: [{ provider: "oa", model: "dall-e-3" }] },
            "gpt-image": { candidates: [{ provider: "oa", model: "gpt-image-1" }] },
            whisper: { candidates: [{ provider: "oa", model: "whisper-1" }] },
            "whisper-twice": {
              candidates: [
                { provider: "oa", model: "whisper-1" },
                { provider: "oa2", model: "whisper-1" },
              ],
            },
            transcribe: { candidates: [{ provider: "oa", model: "gpt-4o-transcribe" }] },
            tts: { candidates: [{ provider: "oa", model: "tts-1" }] },
            claude: { candidates: [{ provider: "an", model: "claude-sonnet-4-5" }] },
          },
          retry: { maxRetries: 0 },
          prices: {
            // The catalog prices neither: OpenAI's list prices, per image and per character.
            "dall-e-3": {
              input: "0",
              output: "0",
              perImage: {
                "standard/1024x1024": "0.04",
                "standard/1024x1792": "0.08",
                "hd/1024x1024": "0.08",
                "hd/1024x1792": "0.12",
              },
            },
            "tts-1": { input: "0", output: "0", perCharacter: "0.000015" },
          },
        },
        "test",
        {},
      ),
    );
    const api = await startLeanApi(app.db, gateway);
    ({ root, recorder, counters, web } = api);
    closeApi = api.close;
    acme = await app.tenantId("acme");
    admin = await app.userId("admin@acme.test");
    secret = (await createApiKey(app.db, { tenantId: acme, name: "media app", createdBy: admin })).secret;
  });
  afterAll(async () => {
    await closeApi();
    await openai.close();
    await anthropic.close();
    await app.close();
  });
  beforeEach(() => {
    openai.reset();
    anthropic.reset();
  });
  afterEach(() => {
    delete process.env.MAX_AUDIO_FILE_BYTES;
    delete process.env.MAX_IMAGE_EDIT_BYTES;
  });

  const oa = (key = secret) => new OpenAI({ apiKey: key, baseURL: `${root}/v1`, maxRetries: 0 });
  const rowOf = (id: string) => ledgerRowOf(app.db, recorder, id);
  const auditOf = (id: string) => auditEventsOf(app.db, recorder, id);
  const form = (fields: Record<string, string>, files: [string, Buffer, string][] = []) => {
    const body = new FormData();
    for (const [name, value] of Object.entries(fields)) body.append(name, value);
    for (const [name, data, filename] of files) body.append(name, new Blob([new Uint8Array(data)]), filename);
    return body;
  };
  const postForm = (path: string, body: FormData | string, headers: Record<string, string> = {}) =>
    fetch(`${root}${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${secret}`, ...headers },
      body,
    });
  const postJson = (path: string, body: unknown) =>
    fetch(`${root}${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });

  describe("images", () => {
    it("generations: the request whole upstream, n images at the size and quality's price, the prompt masked in the audit", async () => {
      const prompt = `A lighthouse at dusk, key ${SECRET_IN_PROMPT}`;
      const { data, response } = await oa()
        .images.generate({ model: "dalle", prompt, n: 2, size: "1024x1792", quality: "hd", style: "vivid" })
        .withResponse();
      expect(data.data).toHaveLength(2);
      expect(data.data![0]!.url).toMatch(/^https:\/\/images\.example\//);
      expect(openai.requests[0]!.path).toBe("/v1/images/generations");
      expect(openai.requests[0]!.headers.authorization).toBeUndefined();
      expect(openai.requests[0]!.body).toEqual({
        model: "dall-e-3",
        prompt,
        n: 2,
        size: "1024x1792",
        quality: "hd",
        style: "vivid",
      });
      const id = response.headers.get("x-request-id")!;
      const row = await rowOf(id);
      expect(row).toMatchObject({
        status: "success",
        servedModel: "dall-e-3",
        costStatus: "priced",
        units: { images: 2, imageSize: "1024x1792", imageQuality: "hd" },
      });
      expect(row.cost).toBe("0.2400000000");
      const [request] = await auditOf(id);
      const payload = JSON.stringify(request!.payload);
      expect(payload).toContain("prompt: A lighthouse at dusk, key [masked");
      expect(payload).not.toContain(SECRET_IN_PROMPT);
    });

    it("generations on gpt-image-1: b64 images, priced by the tokens it reports (the catalog's rates)", async () => {
      const { data, response } = await oa()
        .images.generate({ model: "gpt-image", prompt: "a red square", quality: "low" })
        .withResponse();
      expect(data.data![0]!.b64_json).toBeTruthy();
      expect(data.usage).toMatchObject({ output_tokens: 1056 });
      const row = await rowOf(response.headers.get("x-request-id")!);
      expect(row).toMatchObject({ units: { images: 1, imageSize: "1024x1024", imageQuality: "low" } });
      // $5 per 1M input tokens (3 for "a red square"), $40 per 1M output tokens.
      expect(row.inputTokens).toBe(3);
      expect(row.outputTokens).toBe(1056);
      expect(Number(row.cost)).toBeCloseTo((3 * 5 + 1056 * 40) / 1e6, 12);
    });

    it("edits: the multipart upload's fields and file bytes reach the provider unchanged, model replaced", async () => {
      const { data, response } = await oa()
        .images.edit({
          model: "dalle",
          image: await toFile(PNG, "room.png", { type: "image/png" }),
          mask: await toFile(MASK, "mask.png", { type: "image/png" }),
          prompt: "Add a window",
          n: 1,
          size: "1024x1024",
          response_format: "b64_json",
        })
        .withResponse();
      expect(data.data![0]!.b64_json).toBeTruthy();
      expect(openai.requests[0]!.path).toBe("/v1/images/edits");
      expect(String(openai.requests[0]!.headers["content-type"])).toMatch(/^multipart\/form-data; boundary=/);
      expect(described(uploads.get(openai.requests[0]!)!)).toEqual(
        described([
          { name: "model", value: "dall-e-3" },
          { name: "image", filename: "room.png", contentType: "image/png", data: PNG },
          { name: "mask", filename: "mask.png", contentType: "image/png", data: MASK },
          { name: "prompt", value: "Add a window" },
          { name: "n", value: "1" },
          { name: "size", value: "1024x1024" },
          { name: "response_format", value: "b64_json" },
        ]),
      );
      const id = response.headers.get("x-request-id")!;
      const row = await rowOf(id);
      // No quality asked: charged the dearest rate at its size (hd, $0.08), the worst case.
      expect(row).toMatchObject({ units: { images: 1, imageSize: "1024x1024" }, cost: "0.0800000000" });
      const payload = JSON.stringify((await auditOf(id))[0]!.payload);
      expect(payload).toContain("prompt: Add a window");
      expect(payload).toContain("image: [file room.png, image/png, 3000 bytes]");
      expect(payload).not.toContain(PNG.toString("base64").slice(0, 40));
    });

    it("refuses by name: an Anthropic alias, a stream, no prompt, no image, and a body past the edit limit", async () => {
      const onClaude = await postJson("/v1/images/generations", { model: "claude", prompt: "x" });
      expect(onClaude.status).toBe(400);
      expect((await onClaude.json()).error.message).toMatch(
        /image generations need a candidate of the OpenAI type, and this one is anthropic/,
      );
      const streamed = await postJson("/v1/images/generations", {
        model: "gpt-image",
        prompt: "x",
        stream: true,
      });
      expect(streamed.status).toBe(400);
      expect((await streamed.json()).error).toMatchObject({ param: "stream", code: "unsupported_parameter" });
      const noPrompt = await postJson("/v1/images/generations", { model: "dalle" });
      expect((await noPrompt.json()).error).toMatchObject({ param: "prompt" });
      const tooMany = await postJson("/v1/images/generations", { model: "dalle", prompt: "x", n: 50 });
      expect((await tooMany.json()).error).toMatchObject({ param: "n" });
      const noImage = await postForm("/v1/images/edits", form({ model: "dalle", prompt: "x" }));
      expect(noImage.status).toBe(400);
      expect((await noImage.json()).error).toMatchObject({ param: "image" });
      const editOnClaude = await postForm(
        "/v1/images/edits",
        form({ model: "claude", prompt: "x" }, [["image", PNG, "a.png"]]),
      );
      expect(editOnClaude.status).toBe(400);
      expect((await editOnClaude.json()).error.message).toMatch(
        /image edits need a candidate of the OpenAI type/,
      );
      process.env.MAX_IMAGE_EDIT_BYTES = "2000";
      const tooLarge = await postForm(
        "/v1/images/edits",
        form({ model: "dalle", prompt: "x" }, [["image", PNG, "a.png"]]),
      );
      expect(tooLarge.status).toBe(413);
      expect((await tooLarge.json()).error.message).toMatch(/larger than the limit of 2000 bytes/);
      expect(openai.requests).toHaveLength(0);
    });
  });

  describe("audio", () => {
    it("transcriptions: the file's bytes and every field upstream, the seconds it heard priced at whisper's catalog rate", async () => {
      const { data, response } = await oa()
        .audio.transcriptions.create({
          model: "whisper",
          file: await toFile(AUDIO, "meeting.wav", { type: "audio/wav" }),
          language: "en",
          prompt: `Names: Ada ${SECRET_IN_PROMPT}`,
          temperature: 0,
        })
        .withResponse();
      expect(data.text).toBe("Transcript of meeting.wav.");
      expect(openai.requests[0]!.path).toBe("/v1/audio/transcriptions");
      expect(described(uploads.get(openai.requests[0]!)!)).toEqual(
        described([
          { name: "model", value: "whisper-1" },
          { name: "file", filename: "meeting.wav", contentType: "audio/wav", data: AUDIO },
          { name: "language", value: "en" },
          { name: "prompt", value: `Names: Ada ${SECRET_IN_PROMPT}` },
          { name: "temperature", value: "0" },
        ]),
      );
      const id = response.headers.get("x-request-id")!;
      const row = await rowOf(id);
      const seconds = Math.ceil(AUDIO.length / FAKE_AUDIO_BYTES_PER_SECOND);
      // whisper-1: $0.36 an hour in the catalog, $0.0001 a second.
      expect(row).toMatchObject({ status: "success", costStatus: "priced", units: { seconds } });
      expect(seconds).toBe(3);
      expect(row.cost).toBe("0.0003000000");
      const payload = JSON.stringify((await auditOf(id))[0]!.payload);
      expect(payload).toContain("file: [file meeting.wav, audio/wav, 40000 bytes]");
      expect(payload).not.toContain(SECRET_IN_PROMPT);
    });

    it("transcriptions: verbose_json's exact duration; text formats come back as text and are unpriced (no length)", async () => {
      const file = await toFile(AUDIO, "a.wav", { type: "audio/wav" });
      const { data, response } = await oa()
        .audio.transcriptions.create({ model: "whisper", file, response_format: "verbose_json" })
        .withResponse();
      expect(data.duration).toBe(2.5);
      expect(await rowOf(response.headers.get("x-request-id")!)).toMatchObject({
        units: { seconds: 2.5 },
        cost: "0.0002500000",
      });
      const text = await oa()
        .audio.transcriptions.create({
          model: "whisper",
          file: await toFile(AUDIO, "a.wav"),
          response_format: "text",
        })
        .withResponse();
      expect(text.data).toBe("Transcript of a.wav.\n");
      expect(text.response.headers.get("content-type")).toMatch(/^text\/plain/);
      const row = await rowOf(text.response.headers.get("x-request-id")!);
      expect(row).toMatchObject({ status: "success", costStatus: "unpriced", cost: null });
    });

    it("transcriptions on gpt-4o-transcribe: priced by the tokens it reports", async () => {
      const { response } = await oa()
        .audio.transcriptions.create({ model: "transcribe", file: await toFile(AUDIO, "a.wav") })
        .withResponse();
      const row = await rowOf(response.headers.get("x-request-id")!);
      // 2.5 s as 25 audio tokens at $2.50 per 1M, "Transcript of a.wav." as 5 output tokens at $10 per 1M.
      expect(row).toMatchObject({ inputTokens: 25, outputTokens: 5, costStatus: "priced" });
      expect(row.cost).toBe("0.0001125000");
    });

    it("translations: passed through, the verbose answer's duration on the ledger row", async () => {
      const { data, response } = await oa()
        .audio.translations.create({
          model: "whisper",
          file: await toFile(AUDIO, "grüße.mp3", { type: "audio/mpeg" }),
          response_format: "verbose_json",
        })
        .withResponse();
      // A UTF-8 filename reaches the provider as it was sent.
      expect(data.text).toBe("Transcript of grüße.mp3.");
      expect(openai.requests[0]!.path).toBe("/v1/audio/translations");
      expect(
        Buffer.compare(
          (uploads.get(openai.requests[0]!)!.find((p) => p.name === "file") as { data: Buffer }).data,
          AUDIO,
        ),
      ).toBe(0);
      expect(await rowOf(response.headers.get("x-request-id")!)).toMatchObject({ units: { seconds: 2.5 } });
    });

    it("speech: JSON in, the provider's audio bytes out unchanged, priced per character", async () => {
      const input = "Hello, wörld — ☀";
      const response = await oa().audio.speech.create({ model: "tts", voice: "alloy", input, speed: 1.1 });
      expect(response.headers.get("content-type")).toBe("audio/mpeg");
      const audio = Buffer.from(await response.arrayBuffer());
      expect(Buffer.compare(audio, fakeSpeech(input))).toBe(0);
      expect(openai.requests[0]!.body).toEqual({ model: "tts-1", voice: "alloy", input, speed: 1.1 });
      const row = await rowOf(response.headers.get("x-request-id")!);
      const characters = [...input].length;
      expect(row).toMatchObject({ units: { characters }, costStatus: "priced" });
      expect(Number(row.cost)).toBeCloseTo(characters * 0.000015, 12);
      const payload = JSON.stringify((await auditOf(row.id))[0]!.payload);
      expect(payload).toContain(`input: ${input}`);

      const wav = await oa().audio.speech.create({
        model: "tts",
        voice: "alloy",
        input,
        response_format: "wav",
      });
      expect(wav.headers.get("content-type")).toBe("audio/wav");
    });

    it("refuses by name: an Anthropic alias, streams, a missing file, a body that is not multipart or is malformed, a file past the limit", async () => {
      const onClaude = await postForm(
        "/v1/audio/transcriptions",
        form({ model: "claude" }, [["file", AUDIO, "a.wav"]]),
      );
      expect(onClaude.status).toBe(400);
      expect((await onClaude.json()).error.message).toMatch(
        /audio transcriptions need a candidate of the OpenAI type/,
      );
      const speechOnClaude = await postJson("/v1/audio/speech", {
        model: "claude",
        voice: "alloy",
        input: "hi",
      });
      expect((await speechOnClaude.json()).error.message).toMatch(
        /speech need a candidate of the OpenAI type/,
      );
      const streamed = await postForm(
        "/v1/audio/transcriptions",
        form({ model: "whisper", stream: "true" }, [["file", AUDIO, "a.wav"]]),
      );
      expect(streamed.status).toBe(400);
      expect((await streamed.json()).error).toMatchObject({ param: "stream", code: "unsupported_parameter" });
      const sse = await postJson("/v1/audio/speech", {
        model: "tts",
        voice: "alloy",
        input: "hi",
        stream_format: "sse",
      });
      expect(sse.status).toBe(400);
      expect((await sse.json()).error).toMatchObject({ param: "stream_format" });
      const noInput = await postJson("/v1/audio/speech", { model: "tts", voice: "alloy" });
      expect((await noInput.json()).error).toMatchObject({ param: "input" });
      const noFile = await postForm("/v1/audio/translations", form({ model: "whisper" }));
      expect(noFile.status).toBe(400);
      expect((await noFile.json()).error).toMatchObject({ param: "file" });
      const json = await postForm("/v1/audio/transcriptions", JSON.stringify({ model: "whisper" }), {
        "content-type": "application/json",
      });
      expect(json.status).toBe(415);
      expect((await json.json()).error.message).toMatch(/takes multipart\/form-data/);
      const malformed = await postForm(
        "/v1/audio/transcriptions",
        '--xyz\r\nContent-Disposition: form-data; name="model"\r\n\r\nwhisper\r\n--xyz\r\nContent-Disposition: form-data; name="file"; filename="a.wav"\r\n\r\nabc',
        { "content-type": "multipart/form-data; boundary=xyz" },
      );
      expect(malformed.status).toBe(400);
      expect((await malformed.json()).error).toMatchObject({ code: "invalid_multipart" });
      process.env.MAX_AUDIO_FILE_BYTES = "10000";
      const tooLarge = await postForm(
        "/v1/audio/transcriptions",
        form({ model: "whisper" }, [["file", AUDIO, "long.wav"]]),
      );
      expect(tooLarge.status).toBe(413);
      expect((await tooLarge.json()).error.message).toBe(
        "The file long.wav is larger than the limit of 10000 bytes.",
      );
      expect(openai.requests).toHaveLength(0);
      expect(anthropic.requests).toHaveLength(0);
    });
  });

  describe("budgets", () => {
    it("streams an upload: spooled to a temporary file removed after the call, sent again on a fallback, refused past the limit without a Content-Length, and never read for a bad key", async () => {
      const tmp = await mkdtemp(path.join(os.tmpdir(), "tg-spool-test-"));
      const before = process.env.TMPDIR;
      process.env.TMPDIR = tmp;
      try {
        // The first candidate fails: the second gets the same bytes, read again from the spool.
        openai.enqueue({ kind: "error", status: 500, message: "boom" });
        const text = await oa().audio.transcriptions.create({
          model: "whisper-twice",
          file: await toFile(AUDIO, "twice.wav", { type: "audio/wav" }),
        });
        expect(text.text).toBe("Transcript of twice.wav.");
        expect(openai.requests).toHaveLength(2);
        for (const request of openai.requests)
          expect(described(uploads.get(request)!).find((p) => p.name === "file")).toMatchObject({
            hex: AUDIO.toString("hex"),
          });
        expect(await readdir(tmp)).toEqual([]);
        // The same through the handler Next mounts: the Web Request's body stream is read as it is parsed.
        openai.reset();
        const viaNext = await web(
          new Request(`${root}/v1/audio/transcriptions`, {
            method: "POST",
            headers: { authorization: `Bearer ${secret}` },
            body: form({ model: "whisper" }, [["file", AUDIO, "next.wav"]]),
          }),
        );
        expect(viaNext.status).toBe(200);
        expect((await viaNext.json()).text).toBe("Transcript of next.wav.");
        expect(described(uploads.get(openai.requests[0]!)!).find((p) => p.name === "file")).toMatchObject({
          hex: AUDIO.toString("hex"),
        });
        expect(await readdir(tmp)).toEqual([]);
        // A bad key is refused before the upload is read: nothing is spooled.
        const badKey = await postForm(
          "/v1/audio/transcriptions",
          form({ model: "whisper" }, [["file", AUDIO, "a.wav"]]),
          {
            authorization: "Bearer tg_not_a_key",
          },
        );
        expect(badKey.status).toBe(401);
        expect(await readdir(tmp)).toEqual([]);
        // No Content-Length (a chunked body): counted as it streams in, refused at the limit; the client
        // reads the 413 rather than a reset, and nothing went upstream.
        openai.reset();
        process.env.MAX_AUDIO_FILE_BYTES = "10000";
        const big = Buffer.alloc(3 * 1024 * 1024, 7);
        const chunked = await fetch(`${root}/v1/audio/transcriptions`, {
          method: "POST",
          headers: { authorization: `Bearer ${secret}`, "content-type": "multipart/form-data; boundary=xyz" },
          body: new ReadableStream({
            start(controller) {
              controller.enqueue(
                new TextEncoder().encode(
                  '--xyz\r\nContent-Disposition: form-data; name="model"\r\n\r\nwhisper\r\n--xyz\r\nContent-Disposition: form-data; name="file"; filename="big.wav"\r\n\r\n',
                ),
              );
              for (let at = 0; at < big.length; at += 65536) controller.enqueue(big.subarray(at, at + 65536));
              controller.close();
            },
          }),
          duplex: "half",
        } as RequestInit);
        expect(chunked.status).toBe(413);
        expect((await chunked.json()).error.code).toBe("request_too_large");
        expect(openai.requests).toHaveLength(0);
        expect(await readdir(tmp)).toEqual([]);
      } finally {
        if (before === undefined) delete process.env.TMPDIR;
        else process.env.TMPDIR = before;
        await rm(tmp, { recursive: true, force: true });
      }
    });

    it("refuses before the upstream a call whose worst case the budget cannot cover: n images, the audio's bound, the characters", async () => {
      const keyWithBudget = async (dailyHardUsd: string) => {
        const created = await createApiKey(app.db, {
          tenantId: acme,
          name: `budget ${dailyHardUsd}`,
          createdBy: admin,
        });
        await saveLimits(
          app.db,
          counters,
          acme,
          {
            scope: "key",
            subjectId: created.key.id,
            requestsPerMinute: null,
            tokensPerMinute: null,
            dailySoftUsd: null,
            dailyHardUsd,
            monthlySoftUsd: null,
            monthlyHardUsd: null,
          },
          admin,
        );
        return oa(created.secret);
      };
      const images = await keyWithBudget("0.30");
      // 3 × $0.12 = $0.36 > $0.30; 2 × $0.12 fits.
      const refused = await images.images
        .generate({ model: "dalle", prompt: "x", n: 3, size: "1024x1792", quality: "hd" })
        .catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(OpenAI.RateLimitError);
      expect((refused as Error).message).toMatch(/budget .* may cost up to \$0\.36/);
      expect(openai.requests).toHaveLength(0);
      await images.images.generate({ model: "dalle", prompt: "x", n: 2, size: "1024x1792", quality: "hd" });
      expect(openai.requests).toHaveLength(1);

      openai.reset();
      const audio = await keyWithBudget("0.003");
      // 40,000 bytes bound the audio at 40 s: $0.004 at whisper's $0.0001 a second.
      const heard = await audio.audio.transcriptions
        .create({ model: "whisper", file: await toFile(AUDIO, "a.wav") })
        .catch((e: unknown) => e);
      expect(heard).toBeInstanceOf(OpenAI.RateLimitError);
      expect((heard as Error).message).toMatch(/may cost up to \$0\.004/);
      // 400 characters at $0.000015: $0.006.
      const spoken = await audio.audio.speech
        .create({ model: "tts", voice: "alloy", input: "x".repeat(400) })
        .catch((e: unknown) => e);
      expect(spoken).toBeInstanceOf(OpenAI.RateLimitError);
      expect((spoken as Error).message).toMatch(/may cost up to \$0\.006/);
      expect(openai.requests).toHaveLength(0);
      // 100 characters ($0.0015) fit.
      await audio.audio.speech.create({ model: "tts", voice: "alloy", input: "x".repeat(100) });
      expect(openai.requests).toHaveLength(1);
    });
  });
});
