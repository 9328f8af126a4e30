import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  configFromEnvironment,
  GatewayConfigError,
  loadGatewayConfig,
  OFFLINE_ALIAS,
  parseGatewayConfig,
} from "@/lib/gateway/config";

const valid = {
  providers: { primary: { type: "openai", apiKeyEnv: "PRIMARY_KEY" }, demo: { type: "offline" } },
  models: {
    fast: {
      label: "Fast",
      candidates: [
        { provider: "primary", model: "gpt-4o-mini" },
        { provider: "demo", model: "offline-demo" },
      ],
    },
  },
};

describe("the gateway config", () => {
  it("loads a valid file, fills defaults and reads the key from the named env var", () => {
    const config = parseGatewayConfig(valid, "gateway.config.json", { PRIMARY_KEY: "sk-test" });
    expect(config.providers.primary?.apiKey).toBe("sk-test");
    expect(config.defaultModel).toBe("fast");
    expect(config.retry.maxRetries).toBe(2);
    expect(config.cooldown).toMatchObject({ consecutiveFailures: 3, cooldownMs: 30_000 });
    // `prices` holds the file's overrides only: the catalog prices everything else.
    expect(config.prices).toEqual({});
    const withOverride = parseGatewayConfig(
      { ...valid, prices: { "gpt-4o-mini": { input: "0.1", output: "0.5" } } },
      "gateway.config.json",
      { PRIMARY_KEY: "sk-test" },
    );
    expect(withOverride.prices).toEqual({ "gpt-4o-mini": { input: "0.1", output: "0.5" } });
  });

  it("names the file, the field path and what was expected when a field is wrong", () => {
    const bad = {
      ...valid,
      providers: { ...valid.providers, primary: { type: "openia", apiKeyEnv: "PRIMARY_KEY" } },
    };
    expect(() => parseGatewayConfig(bad, "/etc/tollgate/gateway.config.json", { PRIMARY_KEY: "k" })).toThrow(
      /^\/etc\/tollgate\/gateway\.config\.json: providers\.primary\.type must be one of "openai", "anthropic", "openai-compatible", "azure-openai", "offline"/,
    );
  });

  it("names unknown and missing fields, bad prices and dangling references", () => {
    const at = (raw: unknown) => {
      try {
        parseGatewayConfig(raw, "g.json", { PRIMARY_KEY: "k" });
        return "no error";
      } catch (error) {
        expect(error).toBeInstanceOf(GatewayConfigError);
        return (error as Error).message;
      }
    };
    expect(at({ ...valid, extra: 1 })).toContain("extra is not a known field");
    expect(at({ providers: valid.providers })).toContain("models is required");
    expect(at({ ...valid, prices: { x: { input: 1, output: "2" } } })).toContain(
      "prices.x.input must be string",
    );
    expect(at({ ...valid, models: { m: { candidates: [{ provider: "nope", model: "x" }] } } })).toContain(
      'models.m.candidates[0].provider is "nope", expected one of: primary, demo',
    );
    expect(at({ ...valid, defaultModel: "slow" })).toContain('defaultModel is "slow"');
    expect(() => parseGatewayConfig(valid, "g.json", {})).toThrow(
      /providers\.primary\.apiKeyEnv names PRIMARY_KEY, which is not set/,
    );
  });

  it("reports a file that is not JSON with its path", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "gw-"));
    writeFileSync(path.join(dir, "broken.json"), "{ not json");
    expect(() => loadGatewayConfig({ GATEWAY_CONFIG: "broken.json" }, dir)).toThrow(
      /broken\.json: not valid JSON/,
    );
    expect(() => loadGatewayConfig({ GATEWAY_CONFIG: "missing.json" }, dir)).toThrow(
      /missing\.json: cannot read/,
    );
  });

  it("without a file, uses the offline demo model by default, and real providers when keys are set", () => {
    const bare = configFromEnvironment({});
    expect(bare.defaultModel).toBe(OFFLINE_ALIAS);
    expect(Object.keys(bare.models)).toEqual([OFFLINE_ALIAS]);
    const both = configFromEnvironment({
      OPENAI_API_KEY: "a",
      ANTHROPIC_API_KEY: "b",
      ANTHROPIC_BASE_URL: "http://127.0.0.1:9",
    });
    expect(both.defaultModel).toBe("default");
    expect(both.models.default?.candidates.map((c) => c.provider)).toEqual(["openai", "anthropic"]);
    expect(both.providers.anthropic?.baseUrl).toBe("http://127.0.0.1:9");
    expect(both.models[OFFLINE_ALIAS]).toBeDefined();
  });
});

describe("the example config", () => {
  it("is valid against the schema", async () => {
    const { readFileSync } = await import("node:fs");
    const raw = JSON.parse(readFileSync("gateway.config.example.json", "utf8"));
    const config = parseGatewayConfig(raw, "gateway.config.example.json", {
      OPENAI_API_KEY: "a",
      ANTHROPIC_API_KEY: "b",
    });
    expect(config.models.default?.candidates).toHaveLength(2);
  });
});
