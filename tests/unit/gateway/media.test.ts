import { buffer } from "node:stream/consumers";
import busboy from "busboy";
import { describe, expect, it } from "vitest";
import { parseGatewayConfig } from "@/lib/gateway/config";
import { mediaAnswer, mediaDemand } from "@/lib/gateway/forward/media";
import { bytesPart, encodeMultipart, type MultipartPart, withModel } from "@/lib/gateway/forward/multipart";
import { findPrice, imageRate, type ModelPrice, mediaCostOf, unitCostOf } from "@/lib/gateway/pricing";
import type { Usage } from "@/lib/gateway/types";
import { toResponse } from "@/lib/http/exchange";
import { apiBodyLimitFor, apiBodyLimits } from "@/lib/http/limits";
import { TollgateMetrics } from "@/lib/observability/metrics";
import { TelemetryObserver } from "@/lib/observability/observer";
import { callSummary } from "@/lib/turns/events";

const NO_TOKENS: Usage = {
  inputTokens: 0,
  cachedInputTokens: 0,
  cacheWriteTokens: 0,
  outputTokens: 0,
  reasoningTokens: 0,
};
const DALLE: ModelPrice = {
  input: "0",
  output: "0",
  perImage: { "standard/1024x1024": "0.04", "hd/1024x1024": "0.08", "hd/1024x1792": "0.12" },
};

describe("media prices", () => {
  it("prices an image by quality and size, else the dearest rate that agrees with what is known", () => {
    expect(imageRate(DALLE, "1024x1024", "standard")).toBe("0.04");
    expect(imageRate(DALLE, "1024x1024")).toBe("0.08");
    expect(imageRate(DALLE, undefined, "hd")).toBe("0.12");
    expect(imageRate(DALLE, "auto", "auto")).toBe("0.12");
    expect(imageRate({ ...DALLE, perImage: "0.02" }, "256x256")).toBe("0.02");
    expect(imageRate({ input: "0", output: "0" }, "256x256")).toBeUndefined();
  });

  it("counts units exactly, and is unknown when a unit has no rate or the length was not said", () => {
    expect(unitCostOf({ images: 3, imageSize: "1024x1792", imageQuality: "hd" }, DALLE)).toBe("0.36");
    expect(unitCostOf({ seconds: 61.5 }, { input: "0", output: "0", perSecond: "0.0001" })).toBe("0.00615");
    expect(unitCostOf({ characters: 1000 }, { input: "0", output: "0", perCharacter: "0.000015" })).toBe(
      "0.015",
    );
    expect(unitCostOf({ characters: 10 }, DALLE)).toBeNull();
    expect(unitCostOf({}, { input: "0", output: "0", perSecond: "0.0001" })).toBeNull();
  });

  it("falls back to the tokens a token-priced model reported, never counting both", () => {
    const gptImage: ModelPrice = { input: "5", output: "40" };
    const tokens = { ...NO_TOKENS, inputTokens: 10, outputTokens: 1000 };
    expect(mediaCostOf(tokens, { images: 1 }, gptImage)).toBe("0.04005");
    expect(mediaCostOf(tokens, { images: 1 }, { ...gptImage, perImage: "0.02" })).toBe("0.02");
    expect(mediaCostOf(NO_TOKENS, { images: 1 }, gptImage)).toBeNull();
  });

  it("reads whisper's per-hour catalog price as an exact per-second rate", () => {
    expect(findPrice({}, { name: "oa", type: "openai" }, "whisper-1")?.perSecond).toBe("0.0001");
  });

  it("takes per-unit overrides in the gateway config, and refuses a rate that is not a decimal", () => {
    const base = {
      providers: { oa: { type: "openai" as const } },
      models: { tts: { candidates: [{ provider: "oa", model: "tts-1" }] } },
    };
    const config = parseGatewayConfig(
      {
        ...base,
        prices: {
          "tts-1": { input: "0", output: "0", perCharacter: "0.000015" },
          "dall-e-3": { input: "0", output: "0", perImage: { "hd/1024x1024": "0.08" } },
        },
      },
      "test",
      { OPENAI_API_KEY: "k" },
    );
    expect(config.prices["tts-1"]!.perCharacter).toBe("0.000015");
    expect(() =>
      parseGatewayConfig(
        { ...base, prices: { "tts-1": { input: "0", output: "0", perCharacter: 0.1 } } } as never,
        "test",
        { OPENAI_API_KEY: "k" },
      ),
    ).toThrow(/perCharacter/);
  });
});

describe("media requests and answers", () => {
  it("reserves n images, the audio's length bounded from its size, the characters spoken", () => {
    expect(mediaDemand("openai-image-generations", { n: 3, size: "1024x1792", quality: "hd" })).toEqual({
      images: 3,
      imageSize: "1024x1792",
      imageQuality: "hd",
    });
    expect(mediaDemand("openai-image-edits", { n: "2", image: [{ bytes: 5 }] })).toMatchObject({ images: 2 });
    expect(
      mediaDemand("openai-transcriptions", {
        file: { filename: "a.wav", contentType: "audio/wav", bytes: 25_500 },
      }),
    ).toEqual({ seconds: 26 });
    expect(mediaDemand("openai-speech", { input: "héllo ☀" })).toEqual({ characters: 7 });
  });

  it("keeps speech's bytes exact through the binary string, and reads a transcript's seconds", () => {
    const audio = Buffer.from([0x49, 0x44, 0x33, 0xff, 0x00, 0x80, 0xfe]);
    const speech = mediaAnswer("openai-speech", { input: "hi" }, audio);
    expect(Buffer.compare(Buffer.from(speech.text, "latin1"), audio)).toBe(0);
    expect(speech.summary.units).toEqual({ characters: 2 });
    const whisper = mediaAnswer(
      "openai-transcriptions",
      {},
      Buffer.from(JSON.stringify({ text: "hi", usage: { type: "duration", seconds: 4 } })),
    );
    expect(whisper.summary).toMatchObject({ content: "hi", units: { seconds: 4 } });
    const text = mediaAnswer("openai-transcriptions", { response_format: "srt" }, Buffer.from("1\n..."));
    expect(text.summary.units).toEqual({});
  });
});

describe("multipart uploads", () => {
  it("encodes the parts in order, file bytes unchanged, model replaced, as busboy reads them", async () => {
    const data = Buffer.from([0, 1, 2, 13, 10, 45, 45, 255]);
    const parts: MultipartPart[] = [
      { name: "model", value: "whisper" },
      bytesPart("file", 'we"ird.wav', "audio/wav", data),
      { name: "prompt", value: "ünïcode\r\nlines" },
    ];
    const encoded = encodeMultipart(withModel(parts, "whisper-1"));
    const { contentType } = encoded;
    const body = await buffer(encoded.open());
    // The length announced before sending is the length sent, and a second send (a fallback) sends it again.
    expect(body.length).toBe(encoded.length);
    expect(await buffer(encoded.open())).toEqual(body);
    const read: unknown[] = [];
    await new Promise<void>((resolve, reject) => {
      const parser = busboy({ headers: { "content-type": contentType } });
      parser.on("field", (name, value) => read.push({ name, value }));
      parser.on("file", (name, stream, info) => {
        const chunks: Buffer[] = [];
        const at = read.push(null) - 1;
        stream.on("data", (c: Buffer) => chunks.push(c));
        stream.on("close", () => {
          read[at] = { name, filename: info.filename, data: Buffer.concat(chunks) };
        });
      });
      parser.on("error", reject);
      parser.on("close", resolve);
      parser.end(body);
    });
    expect(read).toEqual([
      { name: "model", value: "whisper-1" },
      { name: "file", filename: "we%22ird.wav", data },
      { name: "prompt", value: "ünïcode\r\nlines" },
    ]);
  });

  it("gives audio uploads and image edits their own body limits, configurable", () => {
    const limits = apiBodyLimits({ MAX_AUDIO_FILE_BYTES: "1000", MAX_IMAGE_EDIT_BYTES: "5000" });
    expect(apiBodyLimitFor("/v1/audio/transcriptions", limits)).toBe(1000 + 1024 * 1024);
    expect(apiBodyLimitFor("/v1/images/edits", limits)).toBe(5000);
    expect(apiBodyLimitFor("/v1/chat/completions", limits)).toBe(10 * 1024 * 1024);
    expect(apiBodyLimits({}).audioFileBytes).toBe(25 * 1024 * 1024);
    expect(apiBodyLimits({}).imageEditBytes).toBe(50 * 1024 * 1024);
  });
});

describe("media metrics", () => {
  it("counts the units an images or audio call was billed by", async () => {
    const metrics = new TollgateMetrics();
    const inner = { start: async () => {}, event: () => {}, end: async () => {} };
    const observer = new TelemetryObserver(inner, { metrics });
    await observer.start({
      turnId: "t1",
      tenantId: "acme",
      userId: null,
      conversationId: null,
      source: "api",
      apiKeyId: "k",
      requestedModel: "whisper",
      message: "file: [file a.wav, audio/wav, 40000 bytes]",
      toolsOffered: [],
      startedAt: new Date(),
    } as never);
    await observer.end({
      ...callSummary(
        "t1",
        "whisper",
        {
          requestedModel: "whisper",
          servedProvider: "oa",
          servedAdapter: "openai",
          servedModel: "whisper-1",
          fallbackIndex: 0,
          attempts: [],
          usage: NO_TOKENS,
          cost: "0.00025",
          costStatus: "priced",
          timeToFirstTokenMs: null,
          latencyMs: 10,
          toolsDropped: false,
          units: { seconds: 2.5 },
        },
        "success",
        10,
      ),
    });
    const text = await metrics.registry.metrics();
    expect(text).toContain(
      'tollgate_media_units_total{tenant="acme",alias="whisper",provider="oa",source="api",unit="seconds"} 2.5',
    );
  });
});

describe("binary answers", () => {
  it("go out of the Next route's Response byte for byte", async () => {
    const audio = new Uint8Array([0x49, 0x44, 0x33, 0xff, 0x00, 0x80]);
    const res = toResponse({ status: 200, headers: { "content-type": "audio/mpeg" }, body: audio });
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(audio);
  });
});
