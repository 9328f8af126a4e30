// The faithful gateway: what the official SDKs send reaches the provider whole (or translated, or refused by
// name), what the provider answers reaches them whole, and every call is a ledger row with its usage.
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createApiKey } from "@/features/keys/server/keys";
import { saveLimits } from "@/features/limits/server/settings";
import { parseGatewayConfig } from "@/lib/gateway/config";
import { Gateway } from "@/lib/gateway/gateway";
import type { BatchedGovernanceRecorder } from "@/lib/governance/batched-recorder";
import type { CounterStore } from "@/lib/pipeline/counters";
import { startFakeAnthropic } from "../fakes/anthropic";
import type { FakeProvider } from "../fakes/http";
import { startFakeOpenAI } from "../fakes/openai";
import { useSeededAppDatabase } from "../helpers/app-db";
import { testDbKinds } from "../helpers/db";
import { auditEventsOf, ledgerRowOf, startLeanApi } from "../helpers/lean-api";

/** Every OpenAI chat field the issue names, and some the gateway has never heard of. */
const EVERY_FIELD = {
  messages: [
    { role: "developer", content: "Be brief." },
    { role: "system", content: [{ type: "text", text: "System part." }], name: "policy" },
    {
      role: "user",
      name: "ada",
      content: [
        { type: "text", text: "What is in this picture and this clip?" },
        { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=", detail: "low" } },
        { type: "input_audio", input_audio: { data: "UklGRg==", format: "wav" } },
      ],
    },
  ],
  response_format: {
    type: "json_schema",
    json_schema: {
      name: "answer",
      strict: true,
      schema: { type: "object", properties: { a: { type: "string" } }, required: ["a"] },
    },
  },
  n: 2,
  seed: 42,
  logprobs: true,
  top_logprobs: 3,
  stop: ["END", "STOP"],
  top_p: 0.9,
  temperature: 0.3,
  presence_penalty: 0.5,
  frequency_penalty: -0.5,
  logit_bias: { "50256": -100 },
  user: "end-user-7",
  metadata: { team: "billing" },
  reasoning_effort: "low",
  service_tier: "flex",
  parallel_tool_calls: false,
  tools: [
    {
      type: "function",
      function: {
        name: "lookup",
        description: "Looks up",
        strict: true,
        parameters: { type: "object", properties: { q: { type: "string" } }, required: ["q"] },
      },
    },
  ],
  tool_choice: "auto",
  max_completion_tokens: 300,
  prediction: { type: "content", content: "predicted" },
  web_search_options: { search_context_size: "low" },
  store: true,
  modalities: ["text"],
  some_future_param: { nested: [1, 2, 3] },
};

/** An answer with everything OpenAI may send, and fields no SDK knows yet. */
const RICH_ANSWER = {
  id: "chatcmpl-upstream-1",
  object: "chat.completion",
  created: 1_700_000_000,
  model: "gpt-4o-mini-2024-07-18",
  system_fingerprint: "fp_abc",
  service_tier: "flex",
  choices: [0, 1].map((index) => ({
    index,
    message: {
      role: "assistant",
      content: `{"a":"choice ${index}"}`,
      refusal: null,
      annotations: [],
      future_field: "kept",
    },
    logprobs: { content: [{ token: "{", logprob: -0.1, bytes: [123], top_logprobs: [] }], refusal: null },
    finish_reason: "stop",
  })),
  usage: {
    prompt_tokens: 50,
    completion_tokens: 12,
    total_tokens: 62,
    prompt_tokens_details: { cached_tokens: 20, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 4, audio_tokens: 0 },
  },
  unknown_top_level: { x: 1 },
};

const chunk = (delta: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  id: "chatcmpl-s1",
  object: "chat.completion.chunk",
  created: 1_700_000_000,
  model: "gpt-4o-mini-2024-07-18",
  system_fingerprint: "fp_abc",
  choices: [{ index: 0, delta, logprobs: null, finish_reason: null }],
  usage: null,
  ...extra,
});

describe.each(testDbKinds)("the faithful /v1 gateway on %s", (kind) => {
  let app: Awaited<ReturnType<typeof useSeededAppDatabase>>;
  let openai: FakeProvider;
  let anthropic: FakeProvider;
  let closeApi: () => Promise<void>;
  let root: string;
  let secret: string;
  let keyId: string;
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
          },
          models: {
            gpt: { candidates: [{ provider: "oa", model: "gpt-4o-mini" }] },
            claude: { candidates: [{ provider: "an", model: "claude-sonnet-4-5" }] },
            "claude-strict": { strict: true, candidates: [{ provider: "an", model: "claude-sonnet-4-5" }] },
            "claude-lenient": {
              dropUnsupported: true,
              candidates: [{ provider: "an", model: "claude-haiku-4-5" }],
            },
            "claude-then-gpt": {
              candidates: [
                { provider: "an", model: "claude-haiku-4-5" },
                { provider: "oa", model: "gpt-4o-mini" },
              ],
            },
            embed: { candidates: [{ provider: "oa", model: "text-embedding-3-small" }] },
            mod: { candidates: [{ provider: "oa", model: "omni-moderation-latest" }] },
          },
          retry: { maxRetries: 0 },
          // OpenAI does not charge for moderations; the catalog has no price for them.
          prices: { "omni-moderation-latest": { input: "0", output: "0" } },
        },
        "test",
        {},
      ),
    );
    const api = await startLeanApi(app.db, gateway);
    ({ root, recorder, counters } = api);
    closeApi = api.close;
    acme = await app.tenantId("acme");
    admin = await app.userId("admin@acme.test");
    const created = await createApiKey(app.db, { tenantId: acme, name: "faithful app", createdBy: admin });
    secret = created.secret;
    keyId = created.key.id;
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

  const oa = () => new OpenAI({ apiKey: secret, baseURL: `${root}/v1`, maxRetries: 0 });
  const an = () => new Anthropic({ apiKey: secret, baseURL: root, maxRetries: 0 });
  const rowOf = (id: string) => ledgerRowOf(app.db, recorder, id);
  const auditOf = (id: string) => auditEventsOf(app.db, recorder, id);
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${root}${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/json", ...headers },
      body: typeof body === "string" ? body : JSON.stringify(body),
    });

  describe("pass-through when the formats match", () => {
    it("carries every field of an OpenAI request whole, and the whole answer back", async () => {
      openai.enqueue({ kind: "raw", json: RICH_ANSWER });
      const res = await post("/v1/chat/completions", { model: "gpt", ...EVERY_FIELD });
      expect(res.status).toBe(200);
      // Upstream got the body as sent, but the model (the candidate's).
      expect(openai.requests[0]!.body).toEqual({ ...EVERY_FIELD, model: "gpt-4o-mini" });
      expect(openai.requests[0]!.path).toBe("/v1/chat/completions");
      // The caller got the answer as sent, every field.
      expect(await res.json()).toEqual(RICH_ANSWER);
      expect(res.headers.get("x-tollgate-provider")).toBe("oa");
      expect(res.headers.get("x-tollgate-model")).toBe("gpt-4o-mini");
      expect(res.headers.get("x-tollgate-fallback-index")).toBe("0");
      const row = await rowOf(res.headers.get("x-request-id")!);
      expect(row).toMatchObject({
        status: "success",
        inputTokens: 30,
        cachedInputTokens: 20,
        outputTokens: 12,
        reasoningTokens: 4,
        servedModel: "gpt-4o-mini-2024-07-18",
        endUser: "end-user-7",
        requestMetadata: { team: "billing" },
      });
    });

    it("structured output works with the SDK's parse(): response_format reaches the model", async () => {
      openai.enqueue({
        kind: "raw",
        json: { ...RICH_ANSWER, choices: [RICH_ANSWER.choices[0]] },
      });
      const parsed = await oa().chat.completions.parse({
        model: "gpt",
        messages: [{ role: "user", content: "answer" }],
        response_format: EVERY_FIELD.response_format as OpenAI.ResponseFormatJSONSchema,
      });
      expect(parsed.choices[0]!.message.parsed).toEqual({ a: "choice 0" });
      expect(openai.requests[0]!.body.response_format).toEqual(EVERY_FIELD.response_format);
    });

    it("a stream without include_usage: asked for upstream, the usage chunk withheld, the tokens in the ledger", async () => {
      openai.enqueue({
        kind: "raw",
        sse: [
          { data: chunk({ role: "assistant", content: "" }) },
          { data: chunk({ content: "Hel" }) },
          {
            data: chunk({
              tool_calls: [
                { index: 0, id: "call_1", type: "function", function: { name: "lookup", arguments: "" } },
              ],
            }),
          },
          { data: chunk({ tool_calls: [{ index: 0, function: { arguments: '{"q":' } }] }) },
          { data: chunk({ tool_calls: [{ index: 0, function: { arguments: '"x"}' } }] }) },
          {
            data: {
              ...chunk({}),
              choices: [{ index: 0, delta: {}, logprobs: null, finish_reason: "tool_calls" }],
            },
          },
          {
            data: {
              ...chunk({}),
              choices: [],
              usage: { prompt_tokens: 9, completion_tokens: 7, total_tokens: 16 },
            },
          },
          { data: "[DONE]" },
        ],
      });
      const { data: stream, response } = await oa()
        .chat.completions.create({
          model: "gpt",
          messages: [{ role: "user", content: "hi" }],
          tools: [{ type: "function", function: { name: "lookup", parameters: { type: "object" } } }],
          stream: true,
        })
        .withResponse();
      const seen: OpenAI.ChatCompletionChunk[] = [];
      for await (const c of stream) seen.push(c);
      expect(openai.requests[0]!.body.stream_options).toEqual({ include_usage: true });
      // Every chunk as the provider sent it, but for the usage it was asked for on the caller's behalf.
      expect(seen).toHaveLength(6);
      expect(seen.every((c) => !("usage" in c))).toBe(true);
      expect(seen.map((c) => c.system_fingerprint)).toEqual(Array(6).fill("fp_abc"));
      // Tool-call arguments arrive as the provider streamed them, piece by piece.
      expect(seen.map((c) => c.choices[0]?.delta.tool_calls?.[0]?.function?.arguments ?? null)).toEqual([
        null,
        null,
        "",
        '{"q":',
        '"x"}',
        null,
      ]);
      const id = response.headers.get("x-request-id")!;
      expect(await rowOf(id)).toMatchObject({ status: "success", inputTokens: 9, outputTokens: 7 });
      expect((await auditOf(id)).map((e) => e.type)).toEqual(["request", "tool_call"]);
    });

    it("a stream that asked for usage gets the usage chunk, unchanged", async () => {
      const { data: stream } = await oa()
        .chat.completions.create({
          model: "gpt",
          messages: [{ role: "user", content: "hi" }],
          stream: true,
          stream_options: { include_usage: true },
        })
        .withResponse();
      const seen: OpenAI.ChatCompletionChunk[] = [];
      for await (const c of stream) seen.push(c);
      expect(seen.at(-1)!.usage).toMatchObject({ completion_tokens: expect.any(Number) });
      expect(openai.requests[0]!.body.stream_options).toEqual({ include_usage: true });
    });

    it("/v1/messages with the Anthropic SDK: x-api-key, JSON, tools, headers carried, the answer whole", async () => {
      const answer = {
        id: "msg_up_1",
        type: "message",
        role: "assistant",
        model: "claude-sonnet-4-5-20250929",
        content: [
          { type: "text", text: "Checking." },
          { type: "tool_use", id: "toolu_1", name: "lookup", input: { q: "x" } },
        ],
        stop_reason: "tool_use",
        stop_sequence: null,
        usage: {
          input_tokens: 40,
          output_tokens: 11,
          cache_read_input_tokens: 5,
          cache_creation_input_tokens: 3,
        },
        container: null,
      };
      anthropic.enqueue({ kind: "raw", json: answer });
      const request = {
        model: "claude",
        max_tokens: 256,
        system: [{ type: "text" as const, text: "Be brief.", cache_control: { type: "ephemeral" as const } }],
        messages: [{ role: "user" as const, content: "look up x" }],
        tools: [{ name: "lookup", input_schema: { type: "object" as const, properties: {} } }],
        tool_choice: { type: "auto" as const },
        top_k: 5,
        metadata: { user_id: "end-user-9" },
        thinking: { type: "enabled" as const, budget_tokens: 1024 },
      };
      const { data, response } = await an()
        .messages.create(request, {
          headers: { "anthropic-beta": "prompt-caching-2024-07-31", "anthropic-version": "2023-06-01" },
        })
        .withResponse();
      expect(data).toEqual(answer);
      const sent = anthropic.requests[0]!;
      expect(sent.path).toBe("/v1/messages");
      expect(sent.body).toEqual({ ...request, model: "claude-sonnet-4-5" });
      expect(sent.headers["anthropic-version"]).toBe("2023-06-01");
      expect(sent.headers["anthropic-beta"]).toBe("prompt-caching-2024-07-31");
      // The provider sees our key, never the caller's.
      expect(sent.headers["x-api-key"]).not.toBe(secret);
      const row = await rowOf(response.headers.get("x-request-id")!);
      expect(row).toMatchObject({
        status: "success",
        inputTokens: 40,
        cachedInputTokens: 5,
        cacheWriteTokens: 3,
        outputTokens: 11,
        endUser: "end-user-9",
      });
    });

    it("/v1/messages streams Anthropic's events through, and the ledger reads their usage", async () => {
      const stream = an().messages.stream({
        model: "claude",
        max_tokens: 100,
        messages: [{ role: "user", content: "hi" }],
      });
      const events: string[] = [];
      for await (const e of stream) events.push(e.type);
      const final = await stream.finalMessage();
      expect(events[0]).toBe("message_start");
      expect(events.at(-1)).toBe("message_stop");
      expect(final.usage.output_tokens).toBeGreaterThan(0);
      expect(anthropic.requests[0]!.body.stream).toBe(true);
      const id = (await stream.withResponse()).response.headers.get("x-request-id")!;
      const row = await rowOf(id);
      expect(row.status).toBe("success");
      expect(row.outputTokens).toBe(final.usage.output_tokens);
    });

    it("/v1/messages/count_tokens is passed through to the Anthropic candidate", async () => {
      const counted = await an().messages.countTokens({
        model: "claude",
        messages: [{ role: "user", content: "count me" }],
      });
      expect(counted.input_tokens).toBeGreaterThan(0);
      expect(anthropic.requests[0]!.path).toBe("/v1/messages/count_tokens");
      expect(anthropic.requests[0]!.body.model).toBe("claude-sonnet-4-5");
    });
  });

  describe("translation when the formats differ", () => {
    it("an OpenAI request served by Anthropic: each field arrives in Anthropic's form, the answer in OpenAI's", async () => {
      anthropic.enqueue({ kind: "text", text: "Translated.", usage: { input: 21, output: 4 } });
      const { data, response } = await oa()
        .chat.completions.create({
          model: "claude",
          messages: [
            { role: "system", content: "Be brief." },
            {
              role: "user",
              content: [
                { type: "text", text: "Describe" },
                { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } },
              ],
            },
          ],
          tools: [{ type: "function", function: { name: "lookup", parameters: { type: "object" } } }],
          tool_choice: "required",
          stop: "END",
          max_tokens: 99,
          user: "end-user-3",
        })
        .withResponse();
      const sent = anthropic.requests[0]!.body;
      expect(sent).toMatchObject({
        model: "claude-sonnet-4-5",
        system: "Be brief.",
        max_tokens: 99,
        stop_sequences: ["END"],
        metadata: { user_id: "end-user-3" },
        tool_choice: { type: "any" },
        tools: [{ name: "lookup", input_schema: { type: "object" } }],
      });
      expect((sent.messages as { content: unknown[] }[])[0]!.content).toEqual([
        { type: "text", text: "Describe" },
        { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } },
      ]);
      expect(data.object).toBe("chat.completion");
      expect(data.choices[0]!.message.content).toBe("Translated.");
      expect(data.usage).toMatchObject({ prompt_tokens: 21, completion_tokens: 4 });
      expect(response.headers.get("x-tollgate-provider")).toBe("an");
      expect(await rowOf(response.headers.get("x-request-id")!)).toMatchObject({
        inputTokens: 21,
        outputTokens: 4,
        servedAdapter: "anthropic",
      });

      // Streamed: OpenAI chunks from Anthropic's events, usage when asked, tokens in the ledger.
      anthropic.enqueue({ kind: "text", text: "Streamed reply.", usage: { input: 8, output: 3 } });
      const { data: stream, response: streamed } = await oa()
        .chat.completions.create({
          model: "claude",
          messages: [{ role: "user", content: "hi" }],
          stream: true,
          stream_options: { include_usage: true },
        })
        .withResponse();
      let text = "";
      let usage: OpenAI.CompletionUsage | null | undefined;
      for await (const c of stream) {
        text += c.choices[0]?.delta.content ?? "";
        if (c.usage) usage = c.usage;
      }
      expect(text).toBe("Streamed reply.");
      expect(usage).toMatchObject({ prompt_tokens: 8, completion_tokens: 3 });
      expect(await rowOf(streamed.headers.get("x-request-id")!)).toMatchObject({
        inputTokens: 8,
        outputTokens: 3,
      });
    });

    it("structured output through translation: the SDK's parse() gets the object", async () => {
      anthropic.enqueue({ kind: "tool_calls", calls: [{ name: "answer", args: { a: "from claude" } }] });
      const parsed = await oa().chat.completions.parse({
        model: "claude",
        messages: [{ role: "user", content: "answer" }],
        response_format: EVERY_FIELD.response_format as OpenAI.ResponseFormatJSONSchema,
      });
      expect(parsed.choices[0]!.message.parsed).toEqual({ a: "from claude" });
      expect(anthropic.requests[0]!.body.tool_choice).toMatchObject({ type: "tool", name: "answer" });
    });

    it.each([
      ["n", { n: 2 }],
      ["logprobs", { logprobs: true }],
      ["seed", { seed: 7 }],
      ["logit_bias", { logit_bias: { "1": 5 } }],
      ["prediction", { prediction: { type: "content", content: "x" } }],
      ["web_search_options", { web_search_options: {} }],
      ["some_future_param", { some_future_param: true }],
    ])("refuses `%s` on an Anthropic-served alias with a 400 naming it", async (field, extra) => {
      const res = await post("/v1/chat/completions", {
        model: "claude",
        messages: [{ role: "user", content: "hi" }],
        ...extra,
      });
      expect(res.status).toBe(400);
      const { error } = await res.json();
      expect(error).toMatchObject({
        code: "unsupported_parameter",
        param: field,
        type: "invalid_request_error",
      });
      expect(error.message).toContain(`\`${field}\``);
      expect(error.message).toContain("claude");
      expect(anthropic.requests).toHaveLength(0);
      const row = await rowOf(res.headers.get("x-request-id")!);
      expect(row).toMatchObject({ status: "failed", errorClass: "unsupported_parameter" });
    });

    it("drops a hint Anthropic has no equivalent for and names it; a strict alias refuses it", async () => {
      const ask = (model: string) =>
        post("/v1/chat/completions", {
          model,
          messages: [
            {
              role: "user",
              name: "ada",
              content: [
                { type: "text", text: "What is this?" },
                {
                  type: "image_url",
                  image_url: { url: "data:image/png;base64,iVBORw0KGgo=", detail: "low" },
                },
              ],
            },
          ],
          service_tier: "priority",
        });
      const res = await ask("claude");
      expect(res.status).toBe(200);
      expect(res.headers.get("x-tollgate-dropped-params")).toBe(
        "messages.0.name, messages.0.content.1.image_url.detail, service_tier",
      );
      const sent = anthropic.requests[0]!.body;
      expect(sent).not.toHaveProperty("service_tier");
      expect(JSON.stringify(sent)).not.toMatch(/ada|detail/);
      const dropped = (await auditOf(res.headers.get("x-request-id")!)).find(
        (e) => e.type === "guardrail" && e.payload.code === "params_dropped",
      );
      expect(dropped?.payload.message).toMatch(/messages\.0\.name/);

      const strict = await ask("claude-strict");
      expect(strict.status).toBe(400);
      expect((await strict.json()).error).toMatchObject({
        code: "unsupported_parameter",
        param: "messages.0.name",
      });
      expect(anthropic.requests).toHaveLength(1);
    });

    it("refuses an audio part by its path", async () => {
      for (const [message, param] of [
        [
          {
            role: "user",
            content: [{ type: "input_audio", input_audio: { data: "UklGRg==", format: "wav" } }],
          },
          "messages.0.content.0",
        ],
      ] as const) {
        const res = await post("/v1/chat/completions", { model: "claude", messages: [message] });
        expect(res.status).toBe(400);
        expect((await res.json()).error).toMatchObject({ code: "unsupported_parameter", param });
      }
    });

    it("an alias with dropUnsupported drops what cannot be carried, and names each field", async () => {
      const res = await post("/v1/chat/completions", {
        model: "claude-lenient",
        messages: [{ role: "user", content: "hi" }],
        n: 2,
        seed: 7,
      });
      expect(res.status).toBe(200);
      expect(res.headers.get("x-tollgate-dropped-params")).toBe("n, seed");
      const sent = anthropic.requests[0]!.body;
      expect(sent).not.toHaveProperty("n");
      expect(sent).not.toHaveProperty("seed");
      const events = await auditOf(res.headers.get("x-request-id")!);
      expect(events.find((e) => e.type === "guardrail" && e.payload.code === "params_dropped")).toBeTruthy();
    });

    it("fallback skips a candidate that cannot carry the request, and says why", async () => {
      const res = await post("/v1/chat/completions", {
        model: "claude-then-gpt",
        messages: [{ role: "user", content: "hi" }],
        logprobs: true,
      });
      expect(res.status).toBe(200);
      expect(res.headers.get("x-tollgate-provider")).toBe("oa");
      expect(res.headers.get("x-tollgate-fallback-index")).toBe("1");
      expect(anthropic.requests).toHaveLength(0);
      expect(openai.requests[0]!.body.logprobs).toBe(true);
      const id = res.headers.get("x-request-id")!;
      const fallback = (await auditOf(id)).find((e) => e.type === "fallback");
      expect(fallback?.payload.message).toMatch(/an\/claude-haiku-4-5 skipped: `logprobs`/);
      expect(await rowOf(id)).toMatchObject({ fallbackIndex: 1, status: "success" });
      // A request both can carry goes to the first.
      const plain = await post("/v1/chat/completions", {
        model: "claude-then-gpt",
        messages: [{ role: "user", content: "hi" }],
      });
      expect(plain.headers.get("x-tollgate-provider")).toBe("an");
    });

    it("an Anthropic request served by OpenAI: translated there and back, JSON and stream", async () => {
      openai.enqueue({ kind: "text", text: "From GPT.", usage: { input: 12, output: 3 } });
      const message = await an().messages.create({
        model: "gpt",
        max_tokens: 50,
        system: "Be brief.",
        messages: [{ role: "user", content: "hi" }],
        tools: [{ name: "lookup", input_schema: { type: "object", properties: {} } }],
        stop_sequences: ["END"],
      });
      expect(openai.requests[0]!.body).toMatchObject({
        model: "gpt-4o-mini",
        messages: [
          { role: "system", content: "Be brief." },
          { role: "user", content: "hi" },
        ],
        max_completion_tokens: 50,
        stop: ["END"],
        tools: [{ type: "function", function: { name: "lookup" } }],
      });
      expect(message).toMatchObject({
        type: "message",
        role: "assistant",
        content: [{ type: "text", text: "From GPT." }],
        usage: { input_tokens: 12, output_tokens: 3 },
      });

      openai.enqueue({ kind: "text", text: "Streamed from GPT.", usage: { input: 6, output: 4 } });
      const stream = an().messages.stream({
        model: "gpt",
        max_tokens: 50,
        messages: [{ role: "user", content: "hi" }],
      });
      const final = await stream.finalMessage();
      expect(final.content).toEqual([expect.objectContaining({ type: "text", text: "Streamed from GPT." })]);
      expect(openai.requests[1]!.body.stream_options).toEqual({ include_usage: true });
      const id = (await stream.withResponse()).response.headers.get("x-request-id")!;
      expect(await rowOf(id)).toMatchObject({ status: "success", inputTokens: 6, outputTokens: 4 });
    });
  });

  describe("other endpoints", () => {
    it("/v1/embeddings: passed through, a ledger row with its tokens", async () => {
      const { data, response } = await oa()
        .embeddings.create({ model: "embed", input: ["one two three", "four"], dimensions: 8 })
        .withResponse();
      expect(data.data).toHaveLength(2);
      expect(data.data[0]!.embedding).toHaveLength(8);
      expect(openai.requests[0]!.path).toBe("/v1/embeddings");
      expect(openai.requests[0]!.body).toMatchObject({ model: "text-embedding-3-small", dimensions: 8 });
      const row = await rowOf(response.headers.get("x-request-id")!);
      expect(row).toMatchObject({
        status: "success",
        inputTokens: data.usage.prompt_tokens,
        outputTokens: 0,
      });
      expect(row.inputTokens).toBeGreaterThan(0);
    });

    it("/v1/moderations: passed through, a ledger row and its request in the audit; refused where it cannot go", async () => {
      const { data, response } = await oa()
        .moderations.create({ model: "mod", input: ["hello there", "FLAG_ME now"] })
        .withResponse();
      expect(data.results.map((r) => r.flagged)).toEqual([false, true]);
      expect(data.results[1]!.categories.violence).toBe(true);
      expect(openai.requests[0]!.path).toBe("/v1/moderations");
      expect(openai.requests[0]!.body).toEqual({
        model: "omni-moderation-latest",
        input: ["hello there", "FLAG_ME now"],
      });
      const id = response.headers.get("x-request-id")!;
      expect(await rowOf(id)).toMatchObject({
        status: "success",
        servedModel: "omni-moderation-2024-09-26",
        costStatus: "priced",
        inputTokens: 0,
      });
      expect(Number((await rowOf(id)).cost)).toBe(0);
      const [request] = await auditOf(id);
      expect(JSON.stringify(request!.payload)).toContain("input: hello there | FLAG_ME now");

      const onClaude = await post("/v1/moderations", { model: "claude", input: "hi" });
      expect(onClaude.status).toBe(400);
      expect((await onClaude.json()).error.message).toMatch(
        /moderations need a candidate of the OpenAI type/,
      );
      const noInput = await post("/v1/moderations", { model: "mod" });
      expect(noInput.status).toBe(400);
      expect((await noInput.json()).error).toMatchObject({ param: "input" });
      const streamed = await post("/v1/moderations", { model: "mod", input: "hi", stream: true });
      expect((await streamed.json()).error).toMatchObject({ param: "stream" });
      expect(openai.requests).toHaveLength(1);
    });

    it("/v1/responses: JSON and stream passed through, usage into the ledger; an Anthropic alias served through chat", async () => {
      const { data, response } = await oa()
        .responses.create({ model: "gpt", input: "hi", reasoning: { effort: "low" }, store: false })
        .withResponse();
      expect(data.output_text).toBeTruthy();
      expect(openai.requests[0]!.path).toBe("/v1/responses");
      expect(openai.requests[0]!.body).toEqual({
        model: "gpt-4o-mini",
        input: "hi",
        reasoning: { effort: "low" },
        store: false,
      });
      const row = await rowOf(response.headers.get("x-request-id")!);
      expect(row.status).toBe("success");
      expect(row.outputTokens).toBe(data.usage!.output_tokens);

      const { data: stream, response: streamed } = await oa()
        .responses.create({ model: "gpt", input: "hi", stream: true })
        .withResponse();
      const types: string[] = [];
      for await (const e of stream) types.push(e.type);
      expect(types.at(-1)).toBe("response.completed");
      const streamRow = await rowOf(streamed.headers.get("x-request-id")!);
      expect(streamRow.status).toBe("success");
      expect(streamRow.outputTokens).toBeGreaterThan(0);

      // An Anthropic alias serves it translated through chat (tests/integration/v1-responses-chat.test.ts).
      const translated = await post("/v1/responses", { model: "claude", input: "hi" });
      expect(translated.status).toBe(200);
      expect(await translated.json()).toMatchObject({ object: "response", status: "completed" });
      expect(anthropic.requests).toHaveLength(1);
      // What needs OpenAI's stored state is still refused by name.
      const refused = await post("/v1/responses", {
        model: "claude",
        input: "hi",
        previous_response_id: "resp_1",
      });
      expect(refused.status).toBe(400);
      const { error } = await refused.json();
      expect(error).toMatchObject({ code: "unsupported_parameter", param: "previous_response_id" });
    });

    it("GET /v1/models and /v1/models/{id}, with x-request-id on every answer, a 401 included", async () => {
      const list = await fetch(`${root}/v1/models`, { headers: { authorization: `Bearer ${secret}` } });
      expect(list.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
      expect((await list.json()).data.map((m: { id: string }) => m.id)).toContain("claude");
      const one = await oa().models.retrieve("claude");
      expect(one).toMatchObject({ id: "claude", object: "model", owned_by: "an" });
      await expect(oa().models.retrieve("nope")).rejects.toMatchObject({ status: 404 });
      const anthropicList = await an().models.list();
      expect(anthropicList.data.map((m) => m.id)).toContain("gpt");
      const unauthorised = await fetch(`${root}/v1/chat/completions`, { method: "POST", body: "{}" });
      expect(unauthorised.status).toBe(401);
      expect(unauthorised.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
      const anthropicUnauthorised = await fetch(`${root}/v1/messages`, {
        method: "POST",
        headers: { "x-api-key": "sk-wrong" },
        body: "{}",
      });
      expect(anthropicUnauthorised.status).toBe(401);
      expect(await anthropicUnauthorised.json()).toMatchObject({
        type: "error",
        error: { type: "authentication_error" },
      });
    });

    it("sends OpenAI's x-ratelimit-* headers when a rate limit applies", async () => {
      const created = await createApiKey(app.db, { tenantId: acme, name: "limited", createdBy: admin });
      await saveLimits(
        app.db,
        counters,
        acme,
        {
          scope: "key",
          subjectId: created.key.id,
          requestsPerMinute: 50,
          tokensPerMinute: 10_000,
          dailySoftUsd: null,
          dailyHardUsd: null,
          monthlySoftUsd: null,
          monthlyHardUsd: null,
        },
        admin,
      );
      const res = await fetch(`${root}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${created.secret}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "gpt", messages: [{ role: "user", content: "hi" }] }),
      });
      expect(res.status).toBe(200);
      expect(res.headers.get("x-ratelimit-limit-requests")).toBe("50");
      expect(res.headers.get("x-ratelimit-remaining-requests")).toBe("49");
      expect(res.headers.get("x-ratelimit-reset-requests")).toMatch(/^\d+(\.\d+)?m?s$|^\dm\d+s$/);
      expect(res.headers.get("x-ratelimit-limit-tokens")).toBe("10000");
      expect(res.headers.get("x-ratelimit-remaining-tokens")).toBe("10000");
    });

    it("a hard budget governs /v1/messages too, refused in Anthropic's shape before anything is sent", async () => {
      const created = await createApiKey(app.db, { tenantId: acme, name: "tiny budget", createdBy: admin });
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
          dailyHardUsd: "0.000001",
          monthlySoftUsd: null,
          monthlyHardUsd: null,
        },
        admin,
      );
      const claude = new Anthropic({ apiKey: created.secret, baseURL: root, maxRetries: 0 });
      const refused = await claude.messages
        .create({ model: "claude", max_tokens: 1000, messages: [{ role: "user", content: "hi" }] })
        .catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(Anthropic.RateLimitError);
      expect((refused as InstanceType<typeof Anthropic.RateLimitError>).error).toMatchObject({
        type: "error",
        error: { type: "rate_limit_error", message: expect.stringContaining("budget") },
      });
      expect(anthropic.requests).toHaveLength(0);
    });

    it("attributes spend to the end user and tags the caller names", async () => {
      const res = await post(
        "/v1/chat/completions",
        { model: "gpt", messages: [{ role: "user", content: "hi" }], user: "from-body" },
        { "x-tollgate-end-user": "customer-42", "x-tollgate-tags": "checkout, beta ,checkout" },
      );
      expect(res.status).toBe(200);
      // The header names who asked; the body's `user` still goes upstream as it was.
      expect(openai.requests[0]!.body.user).toBe("from-body");
      const row = await rowOf(res.headers.get("x-request-id")!);
      expect(row).toMatchObject({ endUser: "customer-42", tags: ["checkout", "beta"], apiKeyId: keyId });
    });
  });
});
