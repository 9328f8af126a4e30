// The Responses API served by models reached through chat completions: the OpenAI SDK's responses.create and
// stream, and the OpenAI Agents SDK's tool loop, against a Claude alias (Anthropic) and a Bedrock alias. The
// request is translated to chat and then to the model's own format; the answer comes back as a Response, the
// stream as Responses' typed events; what needs OpenAI's stored state is refused by name.
import { Agent, run, setTracingDisabled, tool } from "@openai/agents-core";
import { OpenAIResponsesModel } from "@openai/agents-openai";
import OpenAI from "openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { createApiKey } from "@/features/keys/server/keys";
import { parseGatewayConfig } from "@/lib/gateway/config";
import { Gateway } from "@/lib/gateway/gateway";
import type { BatchedGovernanceRecorder } from "@/lib/governance/batched-recorder";
import { startFakeAnthropic } from "../fakes/anthropic";
import { type FakeBedrock, startFakeBedrock } from "../fakes/bedrock";
import type { FakeProvider } from "../fakes/http";
import { useSeededAppDatabase } from "../helpers/app-db";
import { testDbKinds } from "../helpers/db";
import { ledgerRowOf, startLeanApi } from "../helpers/lean-api";

const NOVA = "amazon.nova-pro-v1:0";

describe.each(testDbKinds)("/v1/responses through chat completions on %s", (kind) => {
  let app: Awaited<ReturnType<typeof useSeededAppDatabase>>;
  let anthropic: FakeProvider;
  let bedrock: FakeBedrock;
  let closeApi: () => Promise<void>;
  let root: string;
  let secret: string;
  let recorder: BatchedGovernanceRecorder;

  beforeAll(async () => {
    setTracingDisabled(true);
    app = await useSeededAppDatabase(kind);
    anthropic = await startFakeAnthropic();
    bedrock = await startFakeBedrock({ region: "us-east-1", apiKeys: ["ABSK-test"], models: [NOVA] });
    const gateway = new Gateway(
      parseGatewayConfig(
        {
          providers: {
            an: { type: "anthropic", baseUrl: anthropic.url },
            br: { type: "bedrock", region: "us-east-1", baseUrl: bedrock.url, apiKeyEnv: "BR_KEY" },
          },
          models: {
            claude: { candidates: [{ provider: "an", model: "claude-sonnet-4-5" }] },
            nova: { candidates: [{ provider: "br", model: NOVA }] },
          },
          retry: { maxRetries: 0 },
        },
        "test",
        { BR_KEY: "ABSK-test" },
      ),
    );
    const api = await startLeanApi(app.db, gateway);
    ({ root, recorder } = api);
    closeApi = api.close;
    secret = (
      await createApiKey(app.db, {
        tenantId: await app.tenantId("acme"),
        name: "responses app",
        createdBy: await app.userId("admin@acme.test"),
      })
    ).secret;
  });
  afterAll(async () => {
    await closeApi();
    await anthropic.close();
    await bedrock.close();
    await app.close();
  });
  beforeEach(() => {
    anthropic.reset();
    bedrock.reset();
  });

  const oa = () => new OpenAI({ apiKey: secret, baseURL: `${root}/v1`, maxRetries: 0 });

  it("answers responses.create from a Claude alias as a Response, with its usage and ledger row", async () => {
    anthropic.enqueue({ kind: "text", text: "Hello from Claude.", usage: { input: 40, output: 5 } });
    const { data, response } = await oa()
      .responses.create({
        model: "claude",
        instructions: "Be brief.",
        input: "Hi",
        max_output_tokens: 300,
        store: false,
      })
      .withResponse();
    expect(data.object).toBe("response");
    expect(data.status).toBe("completed");
    expect(data.output_text).toBe("Hello from Claude.");
    expect(data.usage).toMatchObject({ input_tokens: 40, output_tokens: 5 });
    expect(anthropic.requests[0]!.body).toMatchObject({
      model: "claude-sonnet-4-5",
      system: "Be brief.",
      messages: [{ role: "user", content: "Hi" }],
      max_tokens: 300,
    });
    const row = await ledgerRowOf(app.db, recorder, response.headers.get("x-request-id")!);
    expect(row).toMatchObject({
      status: "success",
      servedAdapter: "anthropic",
      inputTokens: 40,
      outputTokens: 5,
    });
  });

  it("streams a Bedrock alias's answer as Responses' typed events, completed with the usage", async () => {
    bedrock.enqueue({ kind: "text", text: "one two three", usage: { input: 9, output: 3 } });
    const stream = oa().responses.stream({ model: "nova", input: [{ role: "user", content: "count" }] });
    const types: string[] = [];
    let text = "";
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === "response.output_text.delta") text += event.delta;
    }
    const final = await stream.finalResponse();
    expect(text).toBe("one two three");
    expect(final.output).toMatchObject([
      { type: "message", status: "completed", content: [{ type: "output_text", text: "one two three" }] },
    ]);
    expect(final.usage).toMatchObject({ input_tokens: 9, output_tokens: 3 });
    expect(types[0]).toBe("response.created");
    expect(types.at(-1)).toBe("response.completed");
    expect(types).toContain("response.output_item.done");
  });

  it("carries function calls and their outputs both ways", async () => {
    anthropic.enqueue({
      kind: "tool_calls",
      calls: [{ id: "toolu_1", name: "get_weather", args: { city: "Paris" } }],
    });
    const tools = [
      {
        type: "function" as const,
        name: "get_weather",
        description: "Weather",
        parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
        strict: false,
      },
    ];
    const first = await oa().responses.create({ model: "claude", input: "Weather in Paris?", tools });
    const call = first.output.find((item) => item.type === "function_call");
    expect(call).toMatchObject({
      type: "function_call",
      call_id: "toolu_1",
      name: "get_weather",
      arguments: '{"city":"Paris"}',
    });
    anthropic.enqueue({ kind: "text", text: "Sunny." });
    const second = await oa().responses.create({
      model: "claude",
      input: [
        { role: "user", content: "Weather in Paris?" },
        { type: "function_call", call_id: "toolu_1", name: "get_weather", arguments: '{"city":"Paris"}' },
        { type: "function_call_output", call_id: "toolu_1", output: "sunny" },
      ],
      tools,
    });
    expect(second.output_text).toBe("Sunny.");
    expect(anthropic.requests[1]!.body.messages).toEqual([
      { role: "user", content: "Weather in Paris?" },
      {
        role: "assistant",
        content: [{ type: "tool_use", id: "toolu_1", name: "get_weather", input: { city: "Paris" } }],
      },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "sunny" }] },
    ]);
  });

  it("refuses by name what needs OpenAI's stored state or built-in tools", async () => {
    const stateful = await oa()
      .responses.create({ model: "claude", input: "again", previous_response_id: "resp_1" })
      .catch((e: unknown) => e);
    expect(stateful).toBeInstanceOf(OpenAI.BadRequestError);
    expect((stateful as Error).message).toMatch(
      /`previous_response_id` cannot be sent to an\/claude-sonnet-4-5/,
    );
    const builtIn = await oa()
      .responses.create({ model: "nova", input: "news?", tools: [{ type: "web_search" }] })
      .catch((e: unknown) => e);
    expect((builtIn as Error).message).toMatch(/`tools\.0`.*web_search tool is OpenAI's own/);
    expect(anthropic.requests.length + bedrock.requests.length).toBe(0);
  });

  it("runs the OpenAI Agents SDK's tool loop unchanged against a Claude alias", async () => {
    anthropic.enqueue(
      { kind: "tool_calls", calls: [{ id: "toolu_7", name: "add", args: { a: 2, b: 3 } }] },
      { kind: "text", text: "2 + 3 = 5" },
    );
    const seen: unknown[] = [];
    const agent = new Agent({
      name: "calculator",
      instructions: "Use the add tool.",
      model: new OpenAIResponsesModel(oa() as never, "claude"),
      tools: [
        tool({
          name: "add",
          description: "Adds two numbers",
          parameters: z.object({ a: z.number(), b: z.number() }),
          execute: async ({ a, b }) => {
            seen.push({ a, b });
            return String(a + b);
          },
        }),
      ],
    });
    const result = await run(agent, "What is 2 + 3?");
    expect(result.finalOutput).toBe("2 + 3 = 5");
    expect(seen).toEqual([{ a: 2, b: 3 }]);
    const followUp = anthropic.requests[1]!.body.messages as Array<{ role: string; content: unknown }>;
    expect(followUp.at(-1)).toEqual({
      role: "user",
      content: [{ type: "tool_result", tool_use_id: "toolu_7", content: "5" }],
    });
  });
});
