// /v1 callers and the drawer served by AWS Bedrock: the OpenAI SDK's chat call translated to Converse (its
// fields by the table in docs/translation.md), the Anthropic SDK's through OpenAI chat, ConverseStream's binary
// events back as the caller's stream, usage and exact cost from the catalog's AWS prices, and fallback from
// Bedrock to Azure OpenAI to OpenAI. The fake runtime checks every request's SigV4 signature.
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createApiKey } from "@/features/keys/server/keys";
import { parseGatewayConfig } from "@/lib/gateway/config";
import { Gateway } from "@/lib/gateway/gateway";
import type { BatchedGovernanceRecorder } from "@/lib/governance/batched-recorder";
import { type FakeAzureOpenAI, startFakeAzureOpenAI } from "../fakes/azure-openai";
import { type FakeBedrock, startFakeBedrock } from "../fakes/bedrock";
import type { FakeProvider } from "../fakes/http";
import { startFakeOpenAI } from "../fakes/openai";
import { useSeededAppDatabase } from "../helpers/app-db";
import { testDbKinds } from "../helpers/db";
import { ask, collect, weather } from "../helpers/gateway-calls";
import { auditEventsOf, ledgerRowOf, startLeanApi } from "../helpers/lean-api";

const REGION = "us-east-1";
const SONNET = "us.anthropic.claude-sonnet-4-20250514-v1:0";
const NOVA = "amazon.nova-pro-v1:0";
const ENV = {
  AWS_KEY_ID: "AKIDTOLLGATE",
  AWS_SECRET: "secret/with+chars",
  AWS_TOKEN: "session-token-1",
  BEDROCK_API_KEY: "ABSKbedrock-api-key",
  AZ_KEY: "azure-key-0123456789",
};

describe.each(testDbKinds)("/v1 served by AWS Bedrock on %s", (kind) => {
  let app: Awaited<ReturnType<typeof useSeededAppDatabase>>;
  let bedrock: FakeBedrock;
  let azure: FakeAzureOpenAI;
  let openai: FakeProvider;
  let gateway: Gateway;
  let closeApi: () => Promise<void>;
  let root: string;
  let secret: string;
  let recorder: BatchedGovernanceRecorder;

  beforeAll(async () => {
    app = await useSeededAppDatabase(kind);
    bedrock = await startFakeBedrock({
      region: REGION,
      keys: { [ENV.AWS_KEY_ID]: { secret: ENV.AWS_SECRET, sessionToken: ENV.AWS_TOKEN } },
      apiKeys: [ENV.BEDROCK_API_KEY],
      models: [SONNET, NOVA],
    });
    azure = await startFakeAzureOpenAI({
      deployments: { "prod-4o": "gpt-4o-2024-11-20" },
      apiKey: ENV.AZ_KEY,
    });
    openai = await startFakeOpenAI();
    const aws = {
      accessKeyIdEnv: "AWS_KEY_ID",
      secretAccessKeyEnv: "AWS_SECRET",
      sessionTokenEnv: "AWS_TOKEN",
    };
    gateway = new Gateway(
      parseGatewayConfig(
        {
          providers: {
            bedrock: { type: "bedrock", region: REGION, baseUrl: bedrock.url, aws },
            "bedrock-key": {
              type: "bedrock",
              region: REGION,
              baseUrl: bedrock.url,
              apiKeyEnv: "BEDROCK_API_KEY",
            },
            azure: {
              type: "azure-openai",
              baseUrl: azure.endpoint,
              apiVersion: "2024-10-21",
              apiKeyEnv: "AZ_KEY",
            },
            oa: { type: "openai", baseUrl: openai.url },
          },
          models: {
            sonnet: { candidates: [{ provider: "bedrock", model: SONNET }] },
            nova: { candidates: [{ provider: "bedrock-key", model: NOVA }] },
            "bedrock-azure-openai": {
              candidates: [
                { provider: "bedrock", model: SONNET },
                { provider: "azure", model: "prod-4o" },
                { provider: "oa", model: "gpt-4o-mini" },
              ],
            },
          },
          retry: { maxRetries: 0 },
        },
        "test",
        ENV,
      ),
    );
    const api = await startLeanApi(app.db, gateway);
    ({ root, recorder } = api);
    closeApi = api.close;
    secret = (
      await createApiKey(app.db, {
        tenantId: await app.tenantId("acme"),
        name: "bedrock app",
        createdBy: await app.userId("admin@acme.test"),
      })
    ).secret;
  });
  afterAll(async () => {
    await closeApi();
    await bedrock.close();
    await azure.close();
    await openai.close();
    await app.close();
  });
  beforeEach(() => {
    bedrock.reset();
    azure.reset();
    openai.reset();
  });

  const oa = () => new OpenAI({ apiKey: secret, baseURL: `${root}/v1`, maxRetries: 0 });
  const an = () => new Anthropic({ apiKey: secret, baseURL: root, maxRetries: 0 });
  const rowOf = (id: string) => ledgerRowOf(app.db, recorder, id);

  it("translates an OpenAI chat call to a signed Converse request and records its exact cost at AWS's prices", async () => {
    bedrock.enqueue({
      kind: "text",
      text: "Hello from Bedrock.",
      usage: { input: 1000, cached: 2000, cacheWrite: 400, output: 100 },
    });
    const { data, response } = await oa()
      .chat.completions.create({
        model: "sonnet",
        messages: [
          { role: "system", content: "Be brief." },
          { role: "user", content: "Hi" },
        ],
        max_tokens: 200,
        temperature: 0.2,
        stop: ["END"],
        user: "u-42",
      })
      .withResponse();
    expect(data.choices[0]!.message.content).toBe("Hello from Bedrock.");
    expect(data.choices[0]!.finish_reason).toBe("stop");
    expect(data.usage).toMatchObject({ prompt_tokens: 3400, completion_tokens: 100 });
    const sent = bedrock.requests[0]!;
    expect(sent.path).toBe(`/model/${encodeURIComponent(SONNET)}/converse`);
    expect(sent.headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDTOLLGATE\/\d{8}\/us-east-1\/bedrock\//,
    );
    expect(sent.headers["x-amz-security-token"]).toBe(ENV.AWS_TOKEN);
    expect(bedrock.signatures).toEqual({ verified: 1, refused: 0 });
    expect(sent.body).toEqual({
      system: [{ text: "Be brief." }],
      messages: [{ role: "user", content: [{ text: "Hi" }] }],
      inferenceConfig: { maxTokens: 200, temperature: 0.2, stopSequences: ["END"] },
      requestMetadata: { user: "u-42" },
    });
    const row = await rowOf(response.headers.get("x-request-id")!);
    expect(row).toMatchObject({
      status: "success",
      servedAdapter: "bedrock",
      servedModel: SONNET,
      inputTokens: 1000,
      cachedInputTokens: 2000,
      cacheWriteTokens: 400,
      outputTokens: 100,
      costStatus: "priced",
    });
    // AWS's prices for Claude Sonnet 4: $3 in, $0.30 cache read, $3.75 cache write, $15 out per million.
    expect(Number(row.cost)).toBeCloseTo(0.003 + 0.0006 + 0.0015 + 0.0015, 10);
  });

  it("streams ConverseStream's binary events back as OpenAI chunks, usage only when asked for", async () => {
    bedrock.enqueue({ kind: "text", text: "one two three", usage: { input: 7, output: 3 } });
    const stream = await oa().chat.completions.create({
      model: "sonnet",
      messages: [{ role: "user", content: "count" }],
      stream: true,
    });
    let text = "";
    let usageSeen = false;
    let finish: string | null | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? "";
      if (chunk.usage) usageSeen = true;
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect(text).toBe("one two three");
    expect(finish).toBe("stop");
    expect(usageSeen).toBe(false);
    expect(bedrock.requests[0]!.path).toBe(`/model/${encodeURIComponent(SONNET)}/converse-stream`);
    bedrock.enqueue({ kind: "text", text: "four five", usage: { input: 7, output: 2 } });
    const withUsage = await oa().chat.completions.create({
      model: "sonnet",
      messages: [{ role: "user", content: "count" }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let usage: unknown;
    for await (const chunk of withUsage) if (chunk.usage) usage = chunk.usage;
    expect(usage).toMatchObject({ completion_tokens: 2 });
  });

  it("round-trips a tool call: Converse's toolUse out as tool_calls, the result back as a toolResult", async () => {
    bedrock.enqueue({
      kind: "tool_calls",
      calls: [{ id: "tooluse_1", name: "get_weather", args: { city: "Paris" } }],
    });
    const tools = [
      {
        type: "function" as const,
        function: {
          name: "get_weather",
          description: "Weather",
          parameters: { type: "object", properties: { city: { type: "string" } } },
        },
      },
    ];
    const first = await oa().chat.completions.create({
      model: "nova",
      messages: [{ role: "user", content: "Weather in Paris?" }],
      tools,
      tool_choice: "required",
    });
    const call = first.choices[0]!.message.tool_calls![0]!;
    expect(first.choices[0]!.finish_reason).toBe("tool_calls");
    expect(call).toMatchObject({
      id: "tooluse_1",
      function: { name: "get_weather", arguments: '{"city":"Paris"}' },
    });
    // A Bedrock API key goes as a bearer, unsigned.
    expect(bedrock.requests[0]!.headers.authorization).toBe(`Bearer ${ENV.BEDROCK_API_KEY}`);
    expect(bedrock.requests[0]!.body.toolConfig).toEqual({
      tools: [
        {
          toolSpec: {
            name: "get_weather",
            description: "Weather",
            inputSchema: { json: tools[0]!.function.parameters },
          },
        },
      ],
      toolChoice: { any: {} },
    });
    bedrock.enqueue({ kind: "text", text: "Sunny." });
    const second = await oa().chat.completions.create({
      model: "nova",
      messages: [
        { role: "user", content: "Weather in Paris?" },
        first.choices[0]!.message,
        { role: "tool", tool_call_id: call.id, content: "sunny, 21C" },
      ],
      tools,
    });
    expect(second.choices[0]!.message.content).toBe("Sunny.");
    expect(bedrock.requests[1]!.body.messages).toEqual([
      { role: "user", content: [{ text: "Weather in Paris?" }] },
      {
        role: "assistant",
        content: [{ toolUse: { toolUseId: "tooluse_1", name: "get_weather", input: { city: "Paris" } } }],
      },
      {
        role: "user",
        content: [{ toolResult: { toolUseId: "tooluse_1", content: [{ text: "sunny, 21C" }] } }],
      },
    ]);
  });

  it("streams a tool call's arguments as they come", async () => {
    bedrock.enqueue({
      kind: "tool_calls",
      calls: [{ id: "tu_9", name: "get_weather", args: { city: "Oslo", unit: "C" } }],
    });
    const stream = await oa().chat.completions.create({
      model: "sonnet",
      messages: [{ role: "user", content: "Weather?" }],
      tools: [{ type: "function", function: { name: "get_weather", parameters: { type: "object" } } }],
      stream: true,
    });
    let args = "";
    let name = "";
    for await (const chunk of stream)
      for (const part of chunk.choices[0]?.delta.tool_calls ?? []) {
        name += part.function?.name ?? "";
        args += part.function?.arguments ?? "";
      }
    expect(name).toBe("get_weather");
    expect(JSON.parse(args)).toEqual({ city: "Oslo", unit: "C" });
  });

  it("serves the Anthropic SDK's Messages call, JSON and streamed, through OpenAI chat to Converse", async () => {
    bedrock.enqueue({ kind: "text", text: "Bonjour.", usage: { input: 20, output: 2 } });
    const message = await an().messages.create({
      model: "sonnet",
      max_tokens: 50,
      system: "Answer in French.",
      messages: [{ role: "user", content: "Hello" }],
    });
    expect(message.content).toEqual(
      [{ type: "text", text: "Bonjour.", citations: null }].map(({ citations: _c, ...b }) => b),
    );
    expect(message.usage).toMatchObject({ input_tokens: 20, output_tokens: 2 });
    expect(bedrock.requests[0]!.body).toMatchObject({
      system: [{ text: "Answer in French." }],
      inferenceConfig: { maxTokens: 50 },
    });
    bedrock.enqueue({ kind: "text", text: "un deux", usage: { input: 5, output: 2 } });
    const stream = an().messages.stream({
      model: "sonnet",
      max_tokens: 20,
      messages: [{ role: "user", content: "count" }],
    });
    const final = await stream.finalMessage();
    expect(final.content[0]).toMatchObject({ type: "text", text: "un deux" });
    expect(final.stop_reason).toBe("end_turn");
  });

  it("refuses by name what Converse cannot carry, before any request is signed", async () => {
    const error = await oa()
      .chat.completions.create({ model: "sonnet", messages: [{ role: "user", content: "Hi" }], seed: 7 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).message).toMatch(
      /`seed` cannot be sent to bedrock\/.*Converse has no seed/,
    );
    expect(bedrock.requests).toHaveLength(0);
  });

  it("falls back from Bedrock to Azure OpenAI to OpenAI when each is throttled or down", async () => {
    bedrock.enqueue({
      kind: "error",
      status: 429,
      message: "Too many requests, please wait before trying again.",
    });
    azure.enqueue({ kind: "error", status: 503, message: "busy" });
    openai.enqueue({ kind: "text", text: "from OpenAI", usage: { input: 10, output: 3 } });
    const { data, response } = await oa()
      .chat.completions.create({ model: "bedrock-azure-openai", messages: [{ role: "user", content: "Hi" }] })
      .withResponse();
    expect(data.choices[0]!.message.content).toBe("from OpenAI");
    expect(response.headers.get("x-tollgate-provider")).toBe("oa");
    expect([bedrock.requests.length, azure.requests.length, openai.requests.length]).toEqual([1, 1, 1]);
    const row = await rowOf(response.headers.get("x-request-id")!);
    expect(row).toMatchObject({ status: "success", servedProvider: "oa", fallbackIndex: 2 });
  });

  it("fails a stream Bedrock breaks with an exception mid-answer, and records what it had used", async () => {
    bedrock.enqueue({
      kind: "stream_exception",
      exception: "modelStreamErrorException",
      message: "model failed",
      afterText: "partial ",
    });
    const stream = await oa().chat.completions.create({
      model: "sonnet",
      messages: [{ role: "user", content: "go" }],
      stream: true,
    });
    let text = "";
    const error = await (async () => {
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
    })().catch((e: unknown) => e);
    expect(text).toBe("partial ");
    expect(String((error as Error).message)).toMatch(/model failed/);
  });

  it("records a Bedrock guardrail's intervention as a guardrail event in the audit trail", async () => {
    bedrock.enqueue({
      kind: "filtered",
      stopReason: "guardrail_intervened",
      text: "Sorry, I can't help with that.",
    });
    const { data, response } = await oa()
      .chat.completions.create({ model: "sonnet", messages: [{ role: "user", content: "…" }] })
      .withResponse();
    expect(data.choices[0]!.finish_reason).toBe("content_filter");
    const events = await auditEventsOf(app.db, recorder, response.headers.get("x-request-id")!);
    expect(events.find((e) => e.type === "guardrail")?.payload).toMatchObject({
      code: "provider_content_filter",
    });
  });

  it("serves the drawer's calls (the gateway's own chat and stream) through the same translation", async () => {
    bedrock.enqueue(
      { kind: "text", text: "drawer answer", usage: { input: 30, output: 2 } },
      { kind: "tool_calls", calls: [{ id: "tu_d", name: "get_weather", args: { city: "Rome" } }] },
    );
    const res = await gateway.chat(ask("sonnet", { maxTokens: 64 }));
    expect(res.message.content).toBe("drawer answer");
    expect(res.stamp).toMatchObject({ servedAdapter: "bedrock", costStatus: "priced" });
    expect(res.stamp.usage).toMatchObject({ inputTokens: 30, outputTokens: 2 });
    const { all: events } = await collect(gateway.stream(ask("sonnet", { tools: [weather] })));
    expect(events.find((e) => e.type === "tool_call")).toMatchObject({
      call: { name: "get_weather", args: { city: "Rome" } },
    });
    expect(bedrock.signatures.refused).toBe(0);
  });
});
