// Azure OpenAI through the gateway's SDK path (the drawer, evals, the playground): the official SDKs (AzureOpenAI for
// a dated API version, OpenAI for the v1 API) talk to a fake resource that checks the key, the Entra ID token,
// the api-version and the deployment as Azure does.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { GatewayConfigError, parseGatewayConfig } from "@/lib/gateway/config";
import { GatewayError } from "@/lib/gateway/errors";
import { Gateway } from "@/lib/gateway/gateway";
import {
  azureAnswerFiltered,
  azurePromptFiltered,
  type FakeAzureOpenAI,
  startFakeAzureOpenAI,
} from "../fakes/azure-openai";
import type { FakeProvider } from "../fakes/http";
import { startFakeOpenAI } from "../fakes/openai";
import { ask, collect, weather } from "../helpers/gateway-calls";

const KEY = "azure-key-0123456789abcdef";
const ENTRA = {
  tenantId: "0b5f1f1e-3c55-4f40-9d1e-7c4c7f0a1b2c",
  clientId: "tollgate-app",
  clientSecret: "s3cret",
};
let azure: FakeAzureOpenAI;
let openai: FakeProvider;

beforeAll(async () => {
  [azure, openai] = await Promise.all([
    startFakeAzureOpenAI({
      deployments: { "prod-4o": "gpt-4o-2024-11-20", "mini-eu": "gpt-4o-mini-2024-07-18" },
      apiKey: KEY,
      entra: ENTRA,
    }),
    startFakeOpenAI(),
  ]);
});
afterAll(async () => {
  await Promise.all([azure.close(), openai.close()]);
});
beforeEach(() => {
  azure.reset();
  openai.reset();
});

const ENV = {
  AZURE_KEY: KEY,
  AZ_TENANT: ENTRA.tenantId,
  AZ_CLIENT: ENTRA.clientId,
  AZ_SECRET: ENTRA.clientSecret,
  AZ_WRONG_SECRET: "not-the-secret",
  OPENAI_KEY: "sk-fake-openai",
};

function gateway() {
  const entra = (secret = "AZ_SECRET") => ({
    tenantIdEnv: "AZ_TENANT",
    clientIdEnv: "AZ_CLIENT",
    clientSecretEnv: secret,
    authorityHost: azure.endpoint,
  });
  const config = parseGatewayConfig(
    {
      providers: {
        dated: {
          type: "azure-openai",
          baseUrl: azure.endpoint,
          apiVersion: "2024-10-21",
          apiKeyEnv: "AZURE_KEY",
        },
        v1: { type: "azure-openai", baseUrl: `${azure.endpoint}/`, apiKeyEnv: "AZURE_KEY" },
        "v1-entra": { type: "azure-openai", baseUrl: azure.endpoint, entra: entra() },
        "dated-entra": {
          type: "azure-openai",
          baseUrl: azure.endpoint,
          apiVersion: "2024-10-21",
          entra: entra(),
        },
        "wrong-secret": { type: "azure-openai", baseUrl: azure.endpoint, entra: entra("AZ_WRONG_SECRET") },
        openai: { type: "openai", baseUrl: openai.url, apiKeyEnv: "OPENAI_KEY" },
      },
      models: {
        dated: { candidates: [{ provider: "dated", model: "prod-4o" }] },
        v1: { candidates: [{ provider: "v1", model: "prod-4o" }] },
        "v1-entra": { candidates: [{ provider: "v1-entra", model: "mini-eu" }] },
        "dated-entra": { candidates: [{ provider: "dated-entra", model: "mini-eu" }] },
        "no-deployment": { candidates: [{ provider: "dated", model: "gpt-5-nowhere" }] },
        "refused-then-openai": {
          candidates: [
            { provider: "wrong-secret", model: "prod-4o" },
            { provider: "openai", model: "gpt-4o" },
          ],
        },
        "azure-then-openai": {
          candidates: [
            { provider: "v1", model: "prod-4o" },
            { provider: "openai", model: "gpt-4o" },
          ],
        },
      },
      timeouts: { connectMs: 2000, firstTokenMs: 2000, totalMs: 5000 },
      retry: { maxRetries: 0 },
    },
    "azure-test.json",
    ENV,
  );
  return new Gateway(config);
}

describe("Azure OpenAI through the SDKs", () => {
  it("answers on a dated API version: deployment path, api-version, api-key, and the catalog's Azure price", async () => {
    azure.enqueue({ kind: "text", text: "Hi from Azure", usage: { input: 1000, output: 100 } });
    const res = await gateway().chat(ask("dated", { maxTokens: 64 }));
    expect(res.message.content).toBe("Hi from Azure");
    expect(res.stamp).toMatchObject({
      servedProvider: "dated",
      servedAdapter: "azure-openai",
      servedModel: "gpt-4o-2024-11-20",
      usage: { inputTokens: 1000, outputTokens: 100 },
      cost: "0.0035", // (1000 × 2.50 + 100 × 10) / 1M, Azure's gpt-4o in the catalog
      costStatus: "priced",
    });
    expect(res.stamp.contentFilter).toBeUndefined();
    const sent = azure.requests[0]!;
    expect(sent.path).toBe("/openai/deployments/prod-4o/chat/completions?api-version=2024-10-21");
    expect(sent.headers["api-key"]).toBe(KEY);
    expect(sent.headers.authorization).toBeUndefined();
    expect(sent.body).toMatchObject({
      max_completion_tokens: 64,
      messages: [{ role: "system" }, { role: "user" }],
    });
  });

  it("streams tool calls on the v1 API: the deployment as the model, the key as api-key and not as a bearer", async () => {
    azure.enqueue({
      kind: "tool_calls",
      calls: [{ id: "call_1", name: "get_weather", args: { city: "Oslo" } }],
    });
    const out = await collect(gateway().stream(ask("v1", { tools: [weather] })));
    expect(out.all.filter((e) => e.type === "tool_call")).toEqual([
      { type: "tool_call", call: { id: "call_1", name: "get_weather", args: { city: "Oslo" } } },
    ]);
    expect(out.last).toMatchObject({
      type: "done",
      response: {
        finishReason: "tool_calls",
        stamp: { servedAdapter: "azure-openai", servedModel: "gpt-4o-2024-11-20" },
      },
    });
    const sent = azure.requests[0]!;
    expect(sent.path).toBe("/openai/v1/chat/completions");
    expect(sent.body).toMatchObject({
      model: "prod-4o",
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(sent.headers["api-key"]).toBe(KEY);
    expect(sent.headers.authorization).toBeUndefined();
  });

  it("signs in with Entra ID client credentials once, and sends the token as a bearer on both API styles", async () => {
    const gw = gateway();
    const before = azure.tokens.granted;
    azure.enqueue(
      { kind: "text", text: "one", usage: { input: 5, output: 1 } },
      { kind: "text", text: "two", usage: { input: 5, output: 1 } },
    );
    const [a, b] = await Promise.all([gw.chat(ask("v1-entra")), gw.chat(ask("v1-entra"))]);
    expect([a.message.content, b.message.content].sort()).toEqual(["one", "two"]);
    expect(azure.tokens.granted - before).toBe(1);
    const bearer = azure.requests[0]!.headers.authorization;
    expect(bearer).toMatch(/^Bearer eyJ/);
    expect(azure.requests[1]!.headers.authorization).toBe(bearer);
    expect(azure.requests[0]!.headers["api-key"]).toBeUndefined();

    azure.enqueue({ kind: "text", text: "dated", usage: { input: 5, output: 1 } });
    const dated = await collect(gw.stream(ask("dated-entra")));
    expect(dated.text).toBe("dated");
    expect(azure.requests[2]!.path).toBe(
      "/openai/deployments/mini-eu/chat/completions?api-version=2024-10-21",
    );
    expect(azure.requests[2]!.headers.authorization).toMatch(/^Bearer eyJ/);
  });

  it("moves to the next candidate when Entra ID refuses the secret, and says why", async () => {
    const refusedBefore = azure.tokens.refused;
    openai.enqueue({ kind: "text", text: "from OpenAI" });
    const res = await gateway().chat(ask("refused-then-openai"));
    expect(res.message.content).toBe("from OpenAI");
    expect(azure.tokens.refused - refusedBefore).toBe(1);
    expect(res.stamp.fallbackIndex).toBe(1);
    expect(res.stamp.attempts[0]).toMatchObject({
      provider: "wrong-secret",
      outcome: "error",
      errorClass: "auth",
    });
    expect(azure.requests).toHaveLength(0);
  });

  it("falls back from a failing Azure deployment to OpenAI, and reads a missing deployment as not found", async () => {
    azure.enqueue({ kind: "error", status: 500, code: "InternalServerError", message: "boom" });
    openai.enqueue({ kind: "text", text: "rescued" });
    const out = await collect(gateway().stream(ask("azure-then-openai")));
    expect(out.text).toBe("rescued");
    expect(out.all.find((e) => e.type === "fallback")).toMatchObject({ errorClass: "server", toIndex: 1 });

    const missing = await gateway()
      .chat(ask("no-deployment"))
      .catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(GatewayError);
    expect((missing as GatewayError).errorClass).toBe("not_found");
    expect((missing as GatewayError).message).toMatch(/deployment for this resource does not exist/);
  });

  it("surfaces Azure's content filter: a refused prompt and a filtered answer name the categories", async () => {
    azure.enqueue(azurePromptFiltered("violence", "high"));
    const refused = await gateway()
      .chat(ask("dated"))
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(GatewayError);
    expect((refused as GatewayError).errorClass).toBe("bad_request");
    expect((refused as GatewayError).contentFilter).toEqual(["prompt: violence (high)"]);

    azure.enqueue(azurePromptFiltered("hate", "medium"));
    const streamed = await collect(gateway().stream(ask("v1")));
    expect(streamed.last).toMatchObject({
      type: "error",
      error: { class: "bad_request" },
      stamp: { contentFilter: ["prompt: hate (medium)"] },
    });

    azure.enqueue(azureAnswerFiltered("gpt-4o-2024-11-20", "violence", "medium"));
    const cut = await gateway().chat(ask("dated"));
    expect(cut.finishReason).toBe("content_filter");
    expect(cut.stamp.contentFilter).toEqual(["answer: violence (medium)"]);
  });
});

describe("Azure OpenAI configuration", () => {
  const parse = (provider: Record<string, unknown>, env: Record<string, string> = ENV) =>
    parseGatewayConfig(
      { providers: { az: provider }, models: { m: { candidates: [{ provider: "az", model: "d" }] } } },
      "gateway.json",
      env,
    );

  it("refuses a provider without its endpoint, with both or neither credential, or with Entra variables unset", () => {
    expect(() => parse({ type: "azure-openai", apiKeyEnv: "AZURE_KEY" })).toThrow(
      /providers\.az\.baseUrl is required for type azure-openai/,
    );
    expect(() => parse({ type: "azure-openai", baseUrl: "https://x.openai.azure.com" })).toThrow(
      /set one of apiKeyEnv \(a key\) and entra/,
    );
    const entra = { tenantIdEnv: "AZ_TENANT", clientIdEnv: "AZ_CLIENT", clientSecretEnv: "AZ_UNSET" };
    expect(() => parse({ type: "azure-openai", baseUrl: "https://x.openai.azure.com", entra })).toThrow(
      /providers\.az\.entra\.clientSecretEnv names AZ_UNSET, which is not set/,
    );
    expect(() =>
      parse({ type: "azure-openai", baseUrl: "https://x.openai.azure.com", apiKeyEnv: "AZURE_KEY", entra }),
    ).toThrow(GatewayConfigError);
    expect(() => parse({ type: "openai", apiVersion: "2024-10-21" })).toThrow(
      /providers\.az\.apiVersion is for type azure-openai only/,
    );
    expect(() =>
      parse({
        type: "azure-openai",
        baseUrl: "https://x.openai.azure.com",
        apiKeyEnv: "AZURE_KEY",
        apiVersion: "latest",
      }),
    ).toThrow(/apiVersion/);
  });

  it("reads the authority host from AZURE_AUTHORITY_HOST, else Microsoft's", () => {
    const entra = { tenantIdEnv: "AZ_TENANT", clientIdEnv: "AZ_CLIENT", clientSecretEnv: "AZ_SECRET" };
    const provider = { type: "azure-openai", baseUrl: "https://x.openai.azure.com", entra };
    expect(parse(provider).providers.az!.entra).toMatchObject({
      authorityHost: "https://login.microsoftonline.com",
      scope: "https://cognitiveservices.azure.com/.default",
      tenantId: ENTRA.tenantId,
    });
    expect(
      parse(provider, { ...ENV, AZURE_AUTHORITY_HOST: "https://login.microsoftonline.us" }).providers.az!
        .entra,
    ).toMatchObject({ authorityHost: "https://login.microsoftonline.us" });
  });
});
