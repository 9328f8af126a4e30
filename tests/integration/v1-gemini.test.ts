// /v1 callers and the drawer served by Google Gemini (an API key) and Vertex AI (a service account's token): the
// OpenAI SDK's chat call translated to generateContent (its fields by the table in docs/translation.md), the
// Anthropic SDK's through OpenAI chat, SSE frames back as the caller's stream, usage and exact cost from the
// catalog's Google prices, a safety block in the audit trail, and fallback from a rate-limited Gemini to Vertex.
// The fake checks the key, and the bearer its own token endpoint issued for a verified RS256 assertion.
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createApiKey } from "@/features/keys/server/keys";
import { parseGatewayConfig } from "@/lib/gateway/config";
import { Gateway } from "@/lib/gateway/gateway";
import type { BatchedGovernanceRecorder } from "@/lib/governance/batched-recorder";
import {
  type FakeGemini,
  geminiPromptBlocked,
  makeServiceAccount,
  SERVICE_ACCOUNT_EMAIL,
  startFakeGemini,
} from "../fakes/gemini";
import { useSeededAppDatabase } from "../helpers/app-db";
import { testDbKinds } from "../helpers/db";
import { ask, collect, weather } from "../helpers/gateway-calls";
import { auditEventsOf, ledgerRowOf, startLeanApi } from "../helpers/lean-api";

const FLASH = "gemini-2.5-flash";
const PRO = "gemini-2.5-pro";
const KEY = "AIza-tollgate-0123456789";
const VERTEX_PATH = "/v1/projects/proj-1/locations/us-central1/publishers/google/models";

describe.each(testDbKinds)("/v1 served by Google Gemini and Vertex AI on %s", (kind) => {
  let app: Awaited<ReturnType<typeof useSeededAppDatabase>>;
  let google: FakeGemini;
  let gateway: Gateway;
  let closeApi: () => Promise<void>;
  let root: string;
  let secret: string;
  let recorder: BatchedGovernanceRecorder;

  beforeAll(async () => {
    app = await useSeededAppDatabase(kind);
    const account = makeServiceAccount("http://placeholder");
    google = await startFakeGemini({
      models: [FLASH, PRO],
      apiKey: KEY,
      vertex: {
        project: "proj-1",
        location: "us-central1",
        clientEmail: SERVICE_ACCOUNT_EMAIL,
        publicKey: account.publicKey,
      },
    });
    account.write(google.tokenUri);
    gateway = new Gateway(
      parseGatewayConfig(
        {
          providers: {
            gemini: { type: "gemini", apiKeyEnv: "GEMINI_API_KEY", baseUrl: google.url },
            vertex: {
              type: "vertex",
              project: "proj-1",
              location: "us-central1",
              credentialsFile: account.file,
              baseUrl: google.url,
            },
          },
          models: {
            flash: { candidates: [{ provider: "gemini", model: FLASH }] },
            "vertex-pro": { candidates: [{ provider: "vertex", model: PRO }] },
            "gemini-then-vertex": {
              candidates: [
                { provider: "gemini", model: FLASH },
                { provider: "vertex", model: FLASH },
              ],
            },
          },
          retry: { maxRetries: 0 },
        },
        "test",
        { GEMINI_API_KEY: KEY },
      ),
    );
    const api = await startLeanApi(app.db, gateway);
    ({ root, recorder } = api);
    closeApi = api.close;
    secret = (
      await createApiKey(app.db, {
        tenantId: await app.tenantId("acme"),
        name: "gemini app",
        createdBy: await app.userId("admin@acme.test"),
      })
    ).secret;
  });
  afterAll(async () => {
    await closeApi();
    await google.close();
    await app.close();
  });
  beforeEach(() => google.reset());

  const oa = () => new OpenAI({ apiKey: secret, baseURL: `${root}/v1`, maxRetries: 0 });
  const an = () => new Anthropic({ apiKey: secret, baseURL: root, maxRetries: 0 });
  const rowOf = (id: string) => ledgerRowOf(app.db, recorder, id);

  it("translates an OpenAI chat call to generateContent with the key, and records its exact cost at Google's prices", async () => {
    google.enqueue({
      kind: "text",
      text: "Hello from Gemini.",
      usage: { input: 1000, cached: 2000, output: 100 },
    });
    const { data, response } = await oa()
      .chat.completions.create({
        model: "flash",
        messages: [
          { role: "system", content: "Be brief." },
          { role: "user", content: "Hi" },
        ],
        max_tokens: 200,
        temperature: 0.2,
        stop: ["END"],
        seed: 7,
      })
      .withResponse();
    expect(data.choices[0]!.message.content).toBe("Hello from Gemini.");
    expect(data.choices[0]!.finish_reason).toBe("stop");
    expect(data.usage).toMatchObject({
      prompt_tokens: 3000,
      completion_tokens: 100,
      prompt_tokens_details: { cached_tokens: 2000 },
    });
    const sent = google.requests[0]!;
    expect(sent.path).toBe(`/v1beta/models/${FLASH}:generateContent`);
    expect(sent.headers["x-goog-api-key"]).toBe(KEY);
    expect(sent.headers.authorization).toBeUndefined();
    expect(sent.body).toEqual({
      systemInstruction: { parts: [{ text: "Be brief." }] },
      contents: [{ role: "user", parts: [{ text: "Hi" }] }],
      generationConfig: { maxOutputTokens: 200, temperature: 0.2, seed: 7, stopSequences: ["END"] },
    });
    const row = await rowOf(response.headers.get("x-request-id")!);
    expect(row).toMatchObject({
      status: "success",
      servedAdapter: "gemini",
      servedModel: FLASH,
      inputTokens: 1000,
      cachedInputTokens: 2000,
      outputTokens: 100,
      costStatus: "priced",
    });
    // gemini-2.5-flash: $0.30 in, $0.03 cached, $2.50 out per million: 0.0003 + 0.00006 + 0.00025.
    expect(row.cost).toBe("0.0006100000");
  });

  it("streams Vertex AI's SSE frames back as OpenAI chunks with a service-account token, usage only when asked for", async () => {
    google.enqueue({ kind: "text", text: "one two three", usage: { input: 7, output: 3, reasoning: 1 } });
    const stream = await oa().chat.completions.create({
      model: "vertex-pro",
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
    const sent = google.requests[0]!;
    expect(sent.path).toBe(`${VERTEX_PATH}/${PRO}:streamGenerateContent?alt=sse`);
    expect(sent.headers.authorization).toMatch(/^Bearer ya29\./);
    google.enqueue({ kind: "text", text: "four five", usage: { input: 7, output: 2 } });
    const withUsage = await oa().chat.completions.create({
      model: "vertex-pro",
      messages: [{ role: "user", content: "count" }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let usage: unknown;
    for await (const chunk of withUsage) if (chunk.usage) usage = chunk.usage;
    expect(usage).toMatchObject({ prompt_tokens: 7, completion_tokens: 2 });
    // One token for both calls: kept until shortly before it expires.
    expect(google.requests[1]!.headers.authorization).toBe(sent.headers.authorization);
    expect(google.tokens.granted).toBe(1);
    await recorder.flush();
  });

  it("round-trips a tool call: functionCall out as tool_calls with a generated id, the result back by name", async () => {
    google.enqueue({ kind: "tool_calls", calls: [{ name: "get_weather", args: { city: "Paris" } }] });
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
      model: "flash",
      messages: [{ role: "user", content: "Weather in Paris?" }],
      tools,
      tool_choice: "required",
    });
    const call = first.choices[0]!.message.tool_calls![0]!;
    expect(first.choices[0]!.finish_reason).toBe("tool_calls");
    expect(call).toMatchObject({
      id: "call_0",
      type: "function",
      function: { name: "get_weather", arguments: '{"city":"Paris"}' },
    });
    expect(google.requests[0]!.body).toMatchObject({
      tools: [
        {
          functionDeclarations: [
            {
              name: "get_weather",
              description: "Weather",
              parametersJsonSchema: tools[0]!.function.parameters,
            },
          ],
        },
      ],
      toolConfig: { functionCallingConfig: { mode: "ANY" } },
    });
    google.enqueue({ kind: "text", text: "Sunny." });
    const second = await oa().chat.completions.create({
      model: "flash",
      messages: [
        { role: "user", content: "Weather in Paris?" },
        first.choices[0]!.message,
        { role: "tool", tool_call_id: call.id, content: "sunny, 21C" },
      ],
      tools,
    });
    expect(second.choices[0]!.message.content).toBe("Sunny.");
    expect(google.requests[1]!.body.contents).toEqual([
      { role: "user", parts: [{ text: "Weather in Paris?" }] },
      { role: "model", parts: [{ functionCall: { name: "get_weather", args: { city: "Paris" } } }] },
      {
        role: "user",
        parts: [{ functionResponse: { name: "get_weather", response: { output: "sunny, 21C" } } }],
      },
    ]);
  });

  it("streams a function call as one tool_calls delta", async () => {
    google.enqueue({
      kind: "tool_calls",
      calls: [{ id: "fc-9", name: "get_weather", args: { city: "Oslo" } }],
    });
    const stream = await oa().chat.completions.create({
      model: "flash",
      messages: [{ role: "user", content: "Weather?" }],
      tools: [{ type: "function", function: { name: "get_weather", parameters: { type: "object" } } }],
      stream: true,
    });
    let args = "";
    let id = "";
    let finish: string | null | undefined;
    for await (const chunk of stream) {
      for (const part of chunk.choices[0]?.delta.tool_calls ?? []) {
        id += part.id ?? "";
        args += part.function?.arguments ?? "";
      }
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect(id).toBe("fc-9");
    expect(JSON.parse(args)).toEqual({ city: "Oslo" });
    expect(finish).toBe("tool_calls");
  });

  it("serves the Anthropic SDK's Messages call, JSON and streamed, through OpenAI chat to generateContent", async () => {
    google.enqueue({ kind: "text", text: "Bonjour.", usage: { input: 20, output: 2 } });
    const message = await an().messages.create({
      model: "flash",
      max_tokens: 50,
      system: "Answer in French.",
      messages: [{ role: "user", content: "Hello" }],
    });
    expect(message.content).toMatchObject([{ type: "text", text: "Bonjour." }]);
    expect(message.usage).toMatchObject({ input_tokens: 20, output_tokens: 2 });
    expect(google.requests[0]!.body).toMatchObject({
      systemInstruction: { parts: [{ text: "Answer in French." }] },
      generationConfig: { maxOutputTokens: 50 },
    });
    google.enqueue({ kind: "text", text: "un deux", usage: { input: 5, output: 2 } });
    const stream = an().messages.stream({
      model: "vertex-pro",
      max_tokens: 20,
      messages: [{ role: "user", content: "count" }],
    });
    const final = await stream.finalMessage();
    expect(final.content[0]).toMatchObject({ type: "text", text: "un deux" });
    expect(final.stop_reason).toBe("end_turn");
    expect(final.usage).toMatchObject({ output_tokens: 2 });
  });

  it("serves the Responses API through chat completions: a Response, and Responses' typed events", async () => {
    google.enqueue({ kind: "text", text: "Hello from Gemini.", usage: { input: 40, output: 5 } });
    const data = await oa().responses.create({
      model: "flash",
      instructions: "Be brief.",
      input: "Hi",
      max_output_tokens: 300,
      store: false,
    });
    expect(data.status).toBe("completed");
    expect(data.output_text).toBe("Hello from Gemini.");
    expect(data.usage).toMatchObject({ input_tokens: 40, output_tokens: 5 });
    expect(google.requests[0]!.body).toMatchObject({
      systemInstruction: { parts: [{ text: "Be brief." }] },
      contents: [{ role: "user", parts: [{ text: "Hi" }] }],
      generationConfig: { maxOutputTokens: 300 },
    });
    google.enqueue({ kind: "text", text: "one two three", usage: { input: 9, output: 3 } });
    const stream = oa().responses.stream({
      model: "vertex-pro",
      input: [{ role: "user", content: "count" }],
    });
    let text = "";
    for await (const event of stream) if (event.type === "response.output_text.delta") text += event.delta;
    const final = await stream.finalResponse();
    expect(text).toBe("one two three");
    expect(final.usage).toMatchObject({ input_tokens: 9, output_tokens: 3 });
  });

  it("refuses by name what Gemini cannot carry, before any request is sent", async () => {
    const error = await oa()
      .chat.completions.create({
        model: "flash",
        messages: [{ role: "user", content: "Hi" }],
        logprobs: true,
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).message).toMatch(
      /`logprobs` cannot be sent to gemini\/.*log probabilities/,
    );
    expect(google.requests).toHaveLength(0);
  });

  it("falls back from a Gemini API that answers 429 RESOURCE_EXHAUSTED to Vertex AI", async () => {
    google.enqueue(
      { kind: "error", status: 429, message: "Resource has been exhausted (e.g. check quota)." },
      { kind: "text", text: "from Vertex", usage: { input: 10, output: 3 } },
    );
    const { data, response } = await oa()
      .chat.completions.create({ model: "gemini-then-vertex", messages: [{ role: "user", content: "Hi" }] })
      .withResponse();
    expect(data.choices[0]!.message.content).toBe("from Vertex");
    expect(response.headers.get("x-tollgate-provider")).toBe("vertex");
    expect(google.requests.map((r) => r.path)).toEqual([
      `/v1beta/models/${FLASH}:generateContent`,
      `${VERTEX_PATH}/${FLASH}:generateContent`,
    ]);
    const row = await rowOf(response.headers.get("x-request-id")!);
    expect(row).toMatchObject({ status: "success", servedProvider: "vertex", fallbackIndex: 1 });
  });

  it("records a prompt Gemini's safety filter blocked as a provider_content_filter event", async () => {
    google.enqueue(geminiPromptBlocked());
    const { data, response } = await oa()
      .chat.completions.create({ model: "flash", messages: [{ role: "user", content: "…" }] })
      .withResponse();
    expect(data.choices[0]!.finish_reason).toBe("content_filter");
    const events = await auditEventsOf(app.db, recorder, response.headers.get("x-request-id")!);
    expect(events.find((e) => e.type === "guardrail")?.payload).toMatchObject({
      code: "provider_content_filter",
    });
    expect(JSON.stringify(events.find((e) => e.type === "guardrail")?.payload)).toContain(
      "prompt: dangerous_content (high)",
    );
  });

  it("serves the drawer's calls (the gateway's own chat and stream) through the same translation", async () => {
    google.enqueue(
      { kind: "text", text: "drawer answer", usage: { input: 30, output: 2 } },
      { kind: "tool_calls", calls: [{ name: "get_weather", args: { city: "Rome" } }] },
    );
    const res = await gateway.chat(ask("flash", { maxTokens: 64 }));
    expect(res.message.content).toBe("drawer answer");
    expect(res.stamp).toMatchObject({ servedAdapter: "gemini", costStatus: "priced" });
    expect(res.stamp.usage).toMatchObject({ inputTokens: 30, outputTokens: 2 });
    const { all: events } = await collect(gateway.stream(ask("vertex-pro", { tools: [weather] })));
    expect(events.find((e) => e.type === "tool_call")).toMatchObject({
      call: { id: "call_0", name: "get_weather", args: { city: "Rome" } },
    });
  });
});
