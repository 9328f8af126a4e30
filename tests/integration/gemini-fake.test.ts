// The fake Gemini API / Vertex AI speaks the real wire: the official @google/genai SDK reads its answers and
// streams; and Tollgate's service-account token source gets (and caches) a token from its token endpoint, which
// checks the JWT's RS256 signature, aud, iss and scope.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { GoogleGenAI } from "@google/genai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { GoogleTokenSource, readServiceAccountKey } from "@/lib/gateway/native/google-auth";
import { type FakeGemini, makeServiceAccount, startFakeGemini } from "../fakes/gemini";

const KEY = "AIza-fake-0123456789";
const CLIENT_EMAIL = "tollgate@proj-1.iam.gserviceaccount.com";

describe("fake Gemini with the official @google/genai SDK", () => {
  let fake: FakeGemini;
  let client: GoogleGenAI;

  beforeAll(async () => {
    fake = await startFakeGemini({ models: ["gemini-2.5-flash"], apiKey: KEY });
    // v1beta, as Tollgate calls it (responseJsonSchema and parametersJsonSchema are v1beta fields).
    client = new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: fake.url, apiVersion: "v1beta" } });
  });
  afterAll(() => fake.close());
  beforeEach(() => fake.reset());

  it("answers generateContent with text, usage and function calls the SDK reads", async () => {
    fake.enqueue({
      kind: "text",
      text: "Hello there.",
      usage: { input: 12, cached: 4, output: 7, reasoning: 2 },
    });
    const answer = await client.models.generateContent({
      model: "gemini-2.5-flash",
      contents: "Hi",
      config: { systemInstruction: "Be brief.", temperature: 0.1 },
    });
    expect(answer.text).toBe("Hello there.");
    expect(answer.usageMetadata).toMatchObject({
      promptTokenCount: 16,
      cachedContentTokenCount: 4,
      candidatesTokenCount: 5,
      thoughtsTokenCount: 2,
    });
    const sent = fake.requests[0]!;
    expect(sent.path).toBe("/v1beta/models/gemini-2.5-flash:generateContent");
    expect(sent.headers["x-goog-api-key"]).toBe(KEY);
    expect(sent.body).toMatchObject({
      contents: [{ role: "user", parts: [{ text: "Hi" }] }],
      systemInstruction: { parts: [{ text: "Be brief." }] },
      generationConfig: { temperature: 0.1 },
    });

    fake.enqueue({ kind: "tool_calls", calls: [{ name: "weather", args: { city: "Paris" } }] });
    const called = await client.models.generateContent({ model: "gemini-2.5-flash", contents: "Weather?" });
    expect(called.functionCalls).toEqual([{ name: "weather", args: { city: "Paris" } }]);
  });

  it("streams generateContentStream over alt=sse, usage on the last frame", async () => {
    fake.enqueue({ kind: "text", text: "one two three", usage: { input: 3, output: 3 } });
    const stream = await client.models.generateContentStream({
      model: "gemini-2.5-flash",
      contents: "count",
    });
    let text = "";
    let last: unknown;
    for await (const chunk of stream) {
      text += chunk.text ?? "";
      last = chunk;
    }
    expect(text).toBe("one two three");
    expect(last).toMatchObject({
      candidates: [{ finishReason: "STOP" }],
      usageMetadata: { promptTokenCount: 3, candidatesTokenCount: 3 },
    });
    expect(fake.requests[0]!.path).toBe("/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse");
  });

  it("refuses a wrong key (400 API_KEY_INVALID) and answers 429 RESOURCE_EXHAUSTED in Google's error shape", async () => {
    const wrong = new GoogleGenAI({ apiKey: "nope", httpOptions: { baseUrl: fake.url } });
    await expect(
      wrong.models.generateContent({ model: "gemini-2.5-flash", contents: "x" }),
    ).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining("API_KEY_INVALID"),
    });
    fake.enqueue({ kind: "error", status: 429, message: "Resource has been exhausted (e.g. check quota)." });
    await expect(
      client.models.generateContent({ model: "gemini-2.5-flash", contents: "x" }),
    ).rejects.toMatchObject({
      status: 429,
      message: expect.stringContaining("RESOURCE_EXHAUSTED"),
    });
  });
});

describe("Vertex AI service-account tokens against the fake token endpoint", () => {
  let fake: FakeGemini;
  let account: ReturnType<typeof makeServiceAccount>;

  beforeAll(async () => {
    account = makeServiceAccount("http://placeholder");
    fake = await startFakeGemini({
      models: ["gemini-2.5-flash"],
      vertex: {
        project: "proj-1",
        location: "us-central1",
        clientEmail: CLIENT_EMAIL,
        publicKey: account.publicKey,
      },
    });
    account.write(fake.tokenUri);
  });
  afterAll(() => fake.close());

  it("signs the JWT-bearer grant, fetches one token for concurrent calls, and refreshes it near expiry", async () => {
    let now = Date.now();
    const source = new GoogleTokenSource(readServiceAccountKey(account.file), () => now);
    const [a, b, c] = await Promise.all([source.token(), source.token(), source.token()]);
    expect(a).toMatch(/^ya29\./);
    expect(new Set([a, b, c]).size).toBe(1);
    expect(fake.tokens).toEqual({ granted: 1, refused: 0 });
    now += 30 * 60_000;
    expect(await source.token()).toBe(a);
    now += 27 * 60_000; // within five minutes of the hour's expiry
    expect(await source.token()).not.toBe(a);
    expect(fake.tokens.granted).toBe(2);
  });

  it("is refused by the token endpoint when the key is not the service account's (an auth failure)", async () => {
    const stranger = makeServiceAccount(fake.tokenUri);
    const source = new GoogleTokenSource(readServiceAccountKey(stranger.file));
    await expect(source.token()).rejects.toMatchObject({
      errorClass: "auth",
      message: expect.stringContaining("Invalid JWT Signature"),
    });
  });

  it("names what is wrong with a key file, never its contents", () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), "tollgate-sa-")), "bad.json");
    writeFileSync(file, JSON.stringify({ type: "authorized_user", refresh_token: "secret-refresh" }));
    expect(() => readServiceAccountKey(file)).toThrow(
      /is not a service-account key \(its type is authorized_user\)/,
    );
    expect(() => readServiceAccountKey(`${file}.missing`)).toThrow(/cannot read the service-account key/);
  });
});
