// The gemini and vertex provider types in the gateway config (each refusing the other types' fields by name), the
// native provider the registry builds for them, and their prices from the catalog's Google entries.
import { generateKeyPairSync } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { GatewayConfigError, parseGatewayConfig } from "@/lib/gateway/config";
import { openAIUsage } from "@/lib/gateway/forward/formats";
import { createNative } from "@/lib/gateway/native";
import { GeminiProvider } from "@/lib/gateway/native/gemini";
import { costOf, findPrice, lookupPrice } from "@/lib/gateway/pricing";

const keyFile = (() => {
  const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 1024 });
  const file = path.join(mkdtempSync(path.join(tmpdir(), "tollgate-sa-")), "sa.json");
  writeFileSync(
    file,
    JSON.stringify({
      type: "service_account",
      client_email: "sa@proj-1.iam.gserviceaccount.com",
      private_key: privateKey.export({ type: "pkcs8", format: "pem" }),
      token_uri: "http://127.0.0.1:9/token",
    }),
  );
  return file;
})();

const configWith = (provider: Record<string, unknown>, env: Record<string, string> = {}) =>
  parseGatewayConfig(
    {
      providers: { g: provider },
      models: { m: { candidates: [{ provider: "g", model: "gemini-2.5-flash" }] } },
    },
    "g.json",
    env,
  );
const problem = (provider: Record<string, unknown>, env: Record<string, string> = {}) => {
  try {
    configWith(provider, env);
    return "no error";
  } catch (error) {
    expect(error).toBeInstanceOf(GatewayConfigError);
    return (error as Error).message;
  }
};

describe("gemini and vertex providers in the config", () => {
  it("reads a gemini provider's key and builds its native provider", () => {
    const config = configWith({ type: "gemini", apiKeyEnv: "GEMINI_API_KEY" }, { GEMINI_API_KEY: "AIza-1" });
    expect(config.providers.g).toMatchObject({ type: "gemini", apiKey: "AIza-1" });
    expect(createNative(config.providers.g!)).toBeInstanceOf(GeminiProvider);
  });

  it("reads a vertex provider's service-account key at start, from credentialsFile or GOOGLE_APPLICATION_CREDENTIALS", async () => {
    const given = { type: "vertex", project: "proj-1", location: "europe-west4", credentialsFile: keyFile };
    const config = configWith(given);
    expect(config.providers.g?.serviceAccount).toMatchObject({
      client_email: "sa@proj-1.iam.gserviceaccount.com",
      token_uri: "http://127.0.0.1:9/token",
    });
    const fromEnv = configWith(
      { type: "vertex", project: "proj-1", location: "global" },
      { GOOGLE_APPLICATION_CREDENTIALS: keyFile },
    );
    expect(fromEnv.providers.g?.serviceAccount?.client_email).toBe("sa@proj-1.iam.gserviceaccount.com");
    const native = createNative(config.providers.g!)!;
    expect(native).toBeInstanceOf(GeminiProvider);
  });

  it("names what is missing or belongs to another type", () => {
    expect(problem({ type: "gemini" })).toBe(
      "g.json: providers.g.apiKeyEnv is required for type gemini: the variable holding the Gemini API key",
    );
    expect(problem({ type: "gemini", apiKeyEnv: "K", project: "proj-1" }, { K: "k" })).toBe(
      "g.json: providers.g.project is for type vertex only",
    );
    expect(problem({ type: "gemini", apiKeyEnv: "K", region: "us-east-1" }, { K: "k" })).toBe(
      "g.json: providers.g.region is for type bedrock only",
    );
    expect(problem({ type: "gemini", apiKeyEnv: "K", apiVersion: "v1" }, { K: "k" })).toBe(
      "g.json: providers.g.apiVersion is for type azure-openai only",
    );
    expect(problem({ type: "gemini", apiKeyEnvs: ["A", "B"] }, { A: "a", B: "b" })).toBe(
      "g.json: providers.g.apiKeyEnvs: a gemini provider takes one key (apiKeyEnv)",
    );
    expect(problem({ type: "openai", location: "global" })).toBe(
      "g.json: providers.g.location is for type vertex only",
    );
    const vertex = { type: "vertex", project: "proj-1", location: "us-central1", credentialsFile: keyFile };
    expect(problem({ ...vertex, apiKeyEnv: "K" }, { K: "k" })).toBe(
      "g.json: providers.g.apiKeyEnv is not for type vertex: it signs in with a service account (credentialsFile)",
    );
    expect(problem({ ...vertex, project: undefined })).toBe(
      "g.json: providers.g.project is required for type vertex",
    );
    expect(problem({ ...vertex, location: undefined })).toBe(
      "g.json: providers.g.location is required for type vertex: a region such as us-central1, or global",
    );
    expect(problem({ ...vertex, credentialsFile: undefined })).toBe(
      "g.json: providers.g.credentialsFile is required for type vertex (or set GOOGLE_APPLICATION_CREDENTIALS): a service account's JSON key file",
    );
    expect(problem({ ...vertex, credentialsFile: "/nonexistent/sa.json" })).toMatch(
      /^g\.json: providers\.g\.credentialsFile: cannot read the service-account key \/nonexistent\/sa\.json/,
    );
    expect(problem({ ...vertex, location: "Mars" })).toMatch(/providers\.g\.location must match pattern/);
  });
});

describe("Gemini prices", () => {
  it("finds Gemini models under the catalog's Google prices for both types", () => {
    for (const type of ["gemini", "vertex"] as const) {
      expect(lookupPrice({}, { name: "g", type }, "gemini-2.5-flash")?.source).toEqual({
        kind: "catalog",
        id: "google/gemini-2.5-flash",
      });
      expect(lookupPrice({}, { name: "g", type }, "gemini-2.5-pro")?.source).toEqual({
        kind: "catalog",
        id: "google/gemini-2.5-pro",
      });
    }
  });

  it("prices a translated answer's usage exactly, cached tokens at the cached rate and thoughts as output", () => {
    // gemini-2.5-flash: input $0.30, cached $0.03, output $2.50 per 1M. Gemini's usage: 10,000 prompt tokens of
    // which 4,000 cached, 500 candidate and 300 thought tokens. 6,000 × 0.3 = 1800; 4,000 × 0.03 = 120;
    // 800 × 2.5 = 2000; 3920 / 1M = 0.00392.
    const answer = new GeminiProvider({ type: "gemini", apiKey: "k" }).answer(
      {
        candidates: [{ content: { parts: [{ text: "x" }] }, finishReason: "STOP" }],
        usageMetadata: {
          promptTokenCount: 10_000,
          cachedContentTokenCount: 4_000,
          candidatesTokenCount: 500,
          thoughtsTokenCount: 300,
          totalTokenCount: 10_800,
        },
      },
      "gemini-2.5-flash",
    );
    const usage = openAIUsage(answer.usage)!;
    expect(usage).toEqual({
      inputTokens: 6_000,
      cachedInputTokens: 4_000,
      cacheWriteTokens: 0,
      outputTokens: 800,
      reasoningTokens: 300,
    });
    expect(costOf(usage, findPrice({}, { name: "g", type: "vertex" }, "gemini-2.5-flash")!)).toBe("0.00392");
  });
});
