import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseGatewayConfig } from "@/lib/gateway/config";
import { PRESETS } from "@/lib/gateway/presets";
import { findServedPrice } from "@/lib/gateway/pricing";
import gatewaySchema from "@/schemas/gateway.schema.json";

const withProvider = (provider: Record<string, unknown>, env: Record<string, string> = {}) =>
  parseGatewayConfig(
    { providers: { p: provider }, models: { m: { candidates: [{ provider: "p", model: "x" }] } } },
    "gateway.json",
    env,
  ).providers.p!;

describe("presets for OpenAI-compatible services", () => {
  it("are the schema's list, each with an http(s) base URL", () => {
    const names = gatewaySchema.definitions.provider.properties.preset.enum;
    expect([...names].sort()).toEqual(Object.keys(PRESETS).sort());
    for (const preset of Object.values(PRESETS)) expect(preset.baseUrl).toMatch(/^https?:\/\//);
  });

  it("are listed in the gateway guide as they are in the data", () => {
    const guide = readFileSync("docs/guides/gateway.md", "utf8");
    for (const [name, p] of Object.entries(PRESETS)) {
      const key = p.apiKeyEnv ? `\`${p.apiKeyEnv}\`` : "no key";
      const priced = p.catalog ? `\`${p.catalog}\`` : "the config";
      expect(guide).toContain(`| \`${name}\` | \`${p.baseUrl}\` | ${key} | ${priced} |`);
    }
  });

  it("give a provider its base URL and key variable, which its own fields override", () => {
    expect(
      withProvider({ type: "openai-compatible", preset: "groq" }, { GROQ_API_KEY: "gsk_1" }),
    ).toMatchObject({
      baseUrl: "https://api.groq.com/openai/v1",
      apiKey: "gsk_1",
    });
    expect(
      withProvider(
        { type: "openai-compatible", preset: "groq", baseUrl: "http://127.0.0.1:9/v1", apiKeyEnv: "MY_GROQ" },
        { MY_GROQ: "gsk_2" },
      ),
    ).toMatchObject({ baseUrl: "http://127.0.0.1:9/v1", apiKey: "gsk_2" });
    // Several keys of its own replace the preset's variable.
    expect(
      withProvider(
        { type: "openai-compatible", preset: "groq", apiKeyEnvs: ["GROQ_1", "GROQ_2"] },
        { GROQ_1: "gsk_a", GROQ_2: "gsk_b" },
      ),
    ).toMatchObject({ apiKey: "gsk_a", apiKeys: ["gsk_a", "gsk_b"] });
    // A local server needs no key.
    expect(withProvider({ type: "openai-compatible", preset: "ollama" })).toMatchObject({
      baseUrl: "http://127.0.0.1:11434/v1",
      apiKey: undefined,
    });
  });

  it("name the missing variable, refuse an unknown preset, and belong to openai-compatible only", () => {
    expect(() => withProvider({ type: "openai-compatible", preset: "xai" })).toThrow(
      /providers\.p\.preset \(xai\) names XAI_API_KEY, which is not set in the environment/,
    );
    expect(() => withProvider({ type: "openai-compatible", preset: "nowhere" })).toThrow(
      /providers\.p\.preset/,
    );
    expect(() => withProvider({ type: "openai", preset: "groq" })).toThrow(
      /providers\.p\.preset is for type openai-compatible only/,
    );
  });

  it("price a service's models under its own catalog entry, which the model id alone does not find", () => {
    const usage = { name: "fast", type: "openai-compatible" as const };
    expect(findServedPrice({}, usage, "llama-3.3-70b-versatile", "llama-3.3-70b-versatile")).toBeUndefined();
    expect(
      findServedPrice({}, { ...usage, preset: "groq" }, "llama-3.3-70b-versatile", "llama-3.3-70b-versatile"),
    ).toMatchObject({ input: "0.59", output: "0.79" });
    expect(
      findServedPrice({}, { ...usage, preset: "deepseek" }, "deepseek-chat", "deepseek-chat"),
    ).toBeDefined();
    // A local server's models are the config's to price.
    expect(
      findServedPrice({}, { ...usage, preset: "ollama" }, "llama-3.3-70b-versatile", "x"),
    ).toBeUndefined();
  });
});
