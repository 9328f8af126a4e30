import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { parseGatewayConfig } from "@/lib/gateway/config";
import { GatewayError } from "@/lib/gateway/errors";
import { Gateway } from "@/lib/gateway/gateway";
import type { StreamEvent } from "@/lib/gateway/types";
import { startFakeAnthropic } from "../fakes/anthropic";
import type { FakeProvider } from "../fakes/http";
import { startFakeOpenAI } from "../fakes/openai";
import { ask, collect, weather } from "../helpers/gateway-calls";

let openai: FakeProvider;
let anthropic: FakeProvider;
let backup: FakeProvider;

beforeAll(async () => {
  [openai, anthropic, backup] = await Promise.all([
    startFakeOpenAI(),
    startFakeAnthropic(),
    startFakeOpenAI(),
  ]);
});
afterAll(async () => {
  await Promise.all([openai.close(), anthropic.close(), backup.close()]);
});
beforeEach(() => {
  openai.reset();
  anthropic.reset();
  backup.reset();
});

/** A gateway over the fakes; fast retries and short timeouts so failures are quick. */
function gateway(overrides: Record<string, unknown> = {}, env: Record<string, string> = {}) {
  const config = parseGatewayConfig(
    {
      providers: {
        openai: { type: "openai", baseUrl: openai.url, apiKeyEnv: "FAKE_OPENAI_KEY" },
        anthropic: { type: "anthropic", baseUrl: anthropic.url, apiKeyEnv: "FAKE_ANTHROPIC_KEY" },
        backup: { type: "openai-compatible", baseUrl: backup.url },
        notools: { type: "openai-compatible", baseUrl: backup.url, supportsTools: false },
      },
      models: {
        gpt: { candidates: [{ provider: "openai", model: "gpt-4o" }] },
        claude: { candidates: [{ provider: "anthropic", model: "claude-sonnet-4-6" }] },
        chain: {
          candidates: [
            { provider: "openai", model: "gpt-4o" },
            { provider: "anthropic", model: "claude-sonnet-4-6" },
          ],
        },
        local: { candidates: [{ provider: "notools", model: "llama3" }] },
      },
      timeouts: { connectMs: 400, firstTokenMs: 400, totalMs: 3000 },
      retry: { maxRetries: 2, baseDelayMs: 5, maxDelayMs: 20, maxRetryAfterMs: 1500 },
      ...overrides,
    },
    "test-gateway.json",
    { FAKE_OPENAI_KEY: "sk-fake-openai", FAKE_ANTHROPIC_KEY: "sk-ant-fake", ...env },
  );
  return new Gateway(config);
}

describe("text through both providers", () => {
  it("answers through OpenAI and stamps the served model from the response body", async () => {
    openai.enqueue({
      kind: "text",
      text: "Hi from OpenAI",
      model: "gpt-4o-2024-08-06",
      usage: { input: 20, output: 4 },
    });
    const res = await gateway().chat(ask("gpt"));
    expect(res.message.content).toBe("Hi from OpenAI");
    expect(res.stamp).toMatchObject({
      requestedModel: "gpt",
      servedProvider: "openai",
      servedAdapter: "openai",
      servedModel: "gpt-4o-2024-08-06",
      fallbackIndex: 0,
      usage: { inputTokens: 20, outputTokens: 4, cachedInputTokens: 0 },
      cost: "0.00009", // (20 × 2.50 + 4 × 10) / 1M
    });
    expect(openai.requests[0]?.headers.authorization).toBe("Bearer sk-fake-openai");
    expect(openai.requests[0]?.body).toMatchObject({
      model: "gpt-4o",
      messages: [{ role: "system" }, { role: "user" }],
    });
  });

  it("answers through Anthropic with the system prompt in its own field", async () => {
    anthropic.enqueue({ kind: "text", text: "Hi from Claude", usage: { input: 12, output: 5 } });
    const res = await gateway().chat(ask("claude"));
    expect(res.message.content).toBe("Hi from Claude");
    expect(res.stamp).toMatchObject({
      servedAdapter: "anthropic",
      servedModel: "claude-sonnet-4-5-20250929",
    });
    const body = anthropic.requests[0]?.body as { system: string; messages: unknown[] };
    expect(body.system).toBe("Be brief.");
    expect(body.messages).toEqual([{ role: "user", content: [{ type: "text", text: "Hello?" }] }]);
  });

  it("streams text through both, ending with done and the usage", async () => {
    openai.enqueue({ kind: "text", text: "one two three four", usage: { input: 9, output: 4 } });
    const a = await collect(gateway().stream(ask("gpt")));
    expect(a.text).toBe("one two three four");
    expect(a.all.filter((e) => e.type === "text").length).toBeGreaterThan(1);
    expect(a.last).toMatchObject({
      type: "done",
      response: { stamp: { usage: { inputTokens: 9, outputTokens: 4 } } },
    });
    expect(a.last.type === "done" && a.last.response.stamp.timeToFirstTokenMs).toBeGreaterThanOrEqual(0);

    anthropic.enqueue({ kind: "text", text: "alpha beta gamma", usage: { input: 7, output: 3 } });
    const b = await collect(gateway().stream(ask("claude")));
    expect(b.text).toBe("alpha beta gamma");
    expect(b.last).toMatchObject({
      type: "done",
      response: { stamp: { servedAdapter: "anthropic", usage: { outputTokens: 3 } } },
    });
  });
});

describe("tool calls round-tripped", () => {
  for (const [model, fake] of [
    ["gpt", () => openai],
    ["claude", () => anthropic],
  ] as const) {
    it(`${model}: a tool call comes back as {id, name, args}, and its result goes back in the provider's format`, async () => {
      fake().enqueue(
        { kind: "tool_calls", calls: [{ id: "call_1", name: "get_weather", args: { city: "Oslo" } }] },
        { kind: "tool_calls", calls: [{ id: "call_2", name: "get_weather", args: { city: "Oslo" } }] },
        { kind: "text", text: "It is 3°C in Oslo." },
      );
      const gw = gateway();
      const first = await gw.chat(ask(model, { tools: [weather] }));
      expect(first.finishReason).toBe("tool_calls");
      expect(first.message.toolCalls).toEqual([
        { id: "call_1", name: "get_weather", args: { city: "Oslo" } },
      ]);

      const streamedFirst = await collect(gw.stream(ask(model, { tools: [weather] })));
      expect(streamedFirst.all.find((e) => e.type === "tool_call")).toEqual({
        type: "tool_call",
        call: { id: "call_2", name: "get_weather", args: { city: "Oslo" } },
      });

      const second = await gw.chat(
        ask(model, {
          tools: [weather],
          messages: [
            { role: "user", content: "Weather in Oslo?" },
            { role: "assistant", content: "", toolCalls: first.message.toolCalls },
            { role: "tool", toolCallId: "call_1", name: "get_weather", content: '{"tempC":3}' },
          ],
        }),
      );
      expect(second.message.content).toBe("It is 3°C in Oslo.");
      const sent = JSON.stringify(fake().requests[2]?.body);
      if (model === "gpt") {
        expect(sent).toContain('"role":"tool","tool_call_id":"call_1","content":"{\\"tempC\\":3}"');
        expect(sent).toContain('"tools":[{"type":"function","function":{"name":"get_weather"');
      } else {
        expect(sent).toContain('"type":"tool_result","tool_use_id":"call_1","content":"{\\"tempC\\":3}"');
        expect(sent).toContain(
          '"type":"tool_use","id":"call_1","name":"get_weather","input":{"city":"Oslo"}',
        );
        expect(sent).toContain('"input_schema"');
      }
    });
  }

  it("leaves tools out for a model that cannot call them, and says so", async () => {
    backup.enqueue({ kind: "text", text: "plain answer" });
    const res = await gateway().chat(ask("local", { tools: [weather] }));
    expect(res.stamp.toolsDropped).toBe(true);
    expect((backup.requests[0]!.body as { tools?: unknown }).tools).toBeUndefined();
    expect(
      gateway()
        .models()
        .find((m) => m.alias === "local")?.supportsTools,
    ).toBe(false);
  });
});

describe("retries and fallback", () => {
  it("falls back from a 500ing primary to the secondary, and the stamp names the secondary", async () => {
    openai.setDefault({ kind: "error", status: 500, message: "upstream exploded" });
    anthropic.enqueue({ kind: "text", text: "rescued" });
    const res = await gateway().chat(ask("chain"));
    expect(res.message.content).toBe("rescued");
    expect(res.stamp).toMatchObject({
      servedProvider: "anthropic",
      servedAdapter: "anthropic",
      fallbackIndex: 1,
    });
    expect(res.stamp.attempts.map((a) => [a.provider, a.outcome, a.status ?? null])).toEqual([
      ["openai", "error", 500],
      ["openai", "error", 500],
      ["openai", "error", 500],
      ["anthropic", "ok", null],
    ]);
  });

  it("retries a 429 after the Retry-After it was given", async () => {
    openai.enqueue(
      { kind: "error", status: 429, message: "slow down", headers: { "retry-after": "1" } },
      { kind: "text", text: "ok now" },
    );
    const started = Date.now();
    const res = await gateway().chat(ask("gpt"));
    expect(res.message.content).toBe("ok now");
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(res.stamp.attempts.map((a) => a.errorClass ?? "ok")).toEqual(["rate_limited", "ok"]);
  });

  it("times out a hanging upstream and falls back", async () => {
    openai.setDefault({ kind: "hang" });
    anthropic.enqueue({ kind: "text", text: "not hanging" });
    const res = await gateway({ retry: { maxRetries: 0 } }).chat(ask("chain"));
    expect(res.message.content).toBe("not hanging");
    expect(res.stamp.attempts[0]).toMatchObject({ provider: "openai", errorClass: "timeout" });
    expect(res.stamp.attempts[0]!.durationMs).toBeLessThan(1500);
  });

  it("moves on at once after a 401, without retrying the misconfigured deployment", async () => {
    openai.setDefault({ kind: "error", status: 401, message: "bad key" });
    anthropic.enqueue({ kind: "text", text: "other vendor" });
    const res = await gateway().chat(ask("chain"));
    expect(res.stamp.attempts.map((a) => [a.provider, a.errorClass ?? "ok"])).toEqual([
      ["openai", "auth"],
      ["anthropic", "ok"],
    ]);
    expect(openai.requests).toHaveLength(1);
  });

  it("fails a 400 at once with the provider's message, without fallback", async () => {
    openai.enqueue({ kind: "error", status: 400, message: "messages[1].content is required" });
    const error = await gateway()
      .chat(ask("chain"))
      .catch((e) => e);
    expect(error).toBeInstanceOf(GatewayError);
    expect(error).toMatchObject({ errorClass: "bad_request", status: 400 });
    expect(error.message).toContain("messages[1].content is required");
    expect(anthropic.requests).toHaveLength(0);
    expect(error.stamp.attempts).toHaveLength(1);
  });

  it("streams fall back too, before the first token, and tell the caller", async () => {
    openai.setDefault({ kind: "error", status: 503, message: "overloaded" });
    anthropic.enqueue({ kind: "text", text: "streamed rescue" });
    const { all, text, last } = await collect(gateway({ retry: { maxRetries: 0 } }).stream(ask("chain")));
    expect(text).toBe("streamed rescue");
    expect(all[0]).toMatchObject({
      type: "fallback",
      from: { provider: "openai" },
      errorClass: "server",
      toIndex: 1,
    });
    expect(last).toMatchObject({
      type: "done",
      response: { stamp: { servedProvider: "anthropic", fallbackIndex: 1 } },
    });
  });
});

describe("streams that fail", () => {
  it("a stream cut after two chunks ends in an error event, not success", async () => {
    openai.enqueue({ kind: "cut", text: "one two three four five", afterChunks: 2 });
    const { all, text, last } = await collect(gateway().stream(ask("chain")));
    expect(text.length).toBeGreaterThan(0);
    expect(all.some((e) => e.type === "done")).toBe(false);
    expect(last).toMatchObject({ type: "error", error: { class: "stream_interrupted" } });
    // No fallback after the first token: the secondary was never asked.
    expect(anthropic.requests).toHaveLength(0);
  });

  it("an Anthropic stream cut mid-way ends in an error event too", async () => {
    anthropic.enqueue({ kind: "cut", text: "alpha beta gamma delta", afterChunks: 2 });
    const { last } = await collect(gateway().stream(ask("claude")));
    expect(last).toMatchObject({ type: "error", error: { class: "stream_interrupted" } });
  });

  it("a stream cut mid-answer counts the tokens streamed so far (estimated, and priced), not zero", async () => {
    openai.enqueue({ kind: "cut", text: "one two three four five six seven eight", afterChunks: 4 });
    const { text, last } = await collect(gateway().stream(ask("gpt")));
    if (last.type !== "error") throw new Error("expected an error event");
    // OpenAI counts only at the end: both sides are estimated (~4 characters a token), and flagged so.
    expect(last.stamp.usage.outputTokens).toBe(Math.ceil(text.length / 4));
    expect(last.stamp.usage.inputTokens).toBe(Math.ceil("Be brief.Hello?".length / 4));
    expect(last.stamp.usageEstimated).toBe(true);
    expect(last.error.message).toMatch(/estimated/);
    expect(Number(last.stamp.cost)).toBeGreaterThan(0);
  });

  it("an Anthropic stream cut mid-answer keeps the input tokens the provider reported at its start", async () => {
    anthropic.enqueue({ kind: "cut", text: "alpha beta gamma delta epsilon", afterChunks: 3 });
    const { text, last } = await collect(gateway().stream(ask("claude")));
    if (last.type !== "error") throw new Error("expected an error event");
    expect(last.stamp.usage.inputTokens).toBe(11); // the fake's message_start input_tokens
    expect(last.stamp.usage.outputTokens).toBe(Math.ceil(text.length / 4));
    expect(last.stamp.usageEstimated).toBe(true);
  });

  it("usage reported before the first token (Anthropic's message_start) does not end the fallback window", async () => {
    anthropic.setDefault({ kind: "hang_after_headers" });
    openai.enqueue({ kind: "text", text: "from the second" });
    const { text, last } = await collect(
      gateway({
        retry: { maxRetries: 0 },
        models: {
          back: {
            candidates: [
              { provider: "anthropic", model: "claude-sonnet-4-6" },
              { provider: "openai", model: "gpt-4o" },
            ],
          },
        },
      }).stream(ask("back")),
    );
    expect(text).toBe("from the second");
    expect(last.type).toBe("done");
  });

  it("a stream that never sends its first token times out and falls back", async () => {
    openai.setDefault({ kind: "hang_after_headers" });
    anthropic.enqueue({ kind: "text", text: "fresh" });
    const { text, last } = await collect(gateway({ retry: { maxRetries: 0 } }).stream(ask("chain")));
    expect(text).toBe("fresh");
    expect(last.type === "done" && last.response.stamp.attempts[0]).toMatchObject({ errorClass: "timeout" });
  });

  it("a stream that stalls after its first tokens ends in an error once the gap exceeds the token timeout", async () => {
    openai.enqueue({ kind: "cut", text: "slow and then silent", afterChunks: 1, ending: "stall" });
    const { all, last } = await collect(gateway().stream(ask("gpt")));
    expect(all[0]).toMatchObject({ type: "text", delta: expect.stringMatching(/^slow/) });
    expect(all).toHaveLength(2);
    expect(last).toMatchObject({
      type: "error",
      error: { class: "stream_interrupted", message: expect.stringContaining("stalled") },
    });
  });
});

describe("cooldown and abort", () => {
  it("skips a failing deployment while it cools down, then probes it after the window", async () => {
    let now = Date.now();
    const config = gateway({ retry: { maxRetries: 0 }, cooldown: { cooldownMs: 30_000 } }).config;
    const gw = new Gateway(config, { now: () => now });
    openai.setDefault({ kind: "error", status: 500 });
    anthropic.setDefault({ kind: "text", text: "secondary" });
    for (let i = 0; i < 3; i++) await gw.chat(ask("chain"));
    expect(openai.requests).toHaveLength(3);
    const skipped = await gw.chat(ask("chain"));
    expect(skipped.stamp.attempts[0]).toMatchObject({ provider: "openai", outcome: "skipped" });
    expect(openai.requests).toHaveLength(3);

    now += 30_001;
    openai.setDefault({ kind: "text", text: "primary is back" });
    const probed = await gw.chat(ask("chain"));
    expect(probed.message.content).toBe("primary is back");
    expect(probed.stamp.fallbackIndex).toBe(0);
    expect(openai.requests).toHaveLength(4);
  });

  it("an abort during a backoff sleep returns at once and is never retried", async () => {
    openai.setDefault({ kind: "error", status: 429, headers: { "retry-after": "30" } });
    const controller = new AbortController();
    const gw = gateway({ retry: { maxRetries: 2, maxRetryAfterMs: 30_000 } });
    const pending = gw.chat(ask("gpt", { signal: controller.signal })).catch((e) => e);
    await new Promise((r) => setTimeout(r, 150));
    const abortedAt = Date.now();
    controller.abort();
    const error = await pending;
    expect(Date.now() - abortedAt).toBeLessThan(100);
    expect(error).toMatchObject({ errorClass: "aborted" });
    expect(openai.requests).toHaveLength(1);
  });

  it("an abort mid-stream ends it with an aborted error, keeping what arrived", async () => {
    openai.enqueue({ kind: "text", text: "a b c d e f g h", chunkDelayMs: 50 });
    const controller = new AbortController();
    const events: StreamEvent[] = [];
    for await (const e of gateway().stream(ask("gpt", { signal: controller.signal }))) {
      events.push(e);
      if (events.length === 2) controller.abort();
    }
    expect(events[events.length - 1]).toMatchObject({ type: "error", error: { class: "aborted" } });
    expect(events.filter((e) => e.type === "text").length).toBeGreaterThanOrEqual(2);
  });

  it("names on Object.prototype are unknown models, not crashes", async () => {
    const gw = gateway();
    for (const name of ["constructor", "__proto__", "toString", "hasOwnProperty"]) {
      expect(gw.hasModel(name)).toBe(false);
      await expect(gw.chat(ask(name))).rejects.toMatchObject({ errorClass: "unknown_model", status: 404 });
      await expect(collect(gw.stream(ask(name)))).rejects.toMatchObject({ errorClass: "unknown_model" });
    }
    expect(gw.hasModel("gpt")).toBe(true);
  });

  it("an unknown alias is refused with the list of models", async () => {
    await expect(gateway().chat(ask("gpt-7"))).rejects.toMatchObject({
      errorClass: "unknown_model",
      status: 404,
    });
  });
});

describe("usage and cost", () => {
  it("OpenAI cached and reasoning tokens are normalized and priced to the last decimal", async () => {
    // prompt_tokens 3282 = 1234 uncached + 2048 cached; completion 517 of which 200 reasoning.
    openai.enqueue({
      kind: "text",
      text: "x",
      model: "gpt-4o-2024-08-06",
      usage: { input: 1234, cached: 2048, output: 517, reasoning: 200 },
    });
    const res = await gateway().chat(ask("gpt"));
    expect(res.stamp.usage).toEqual({
      inputTokens: 1234,
      cachedInputTokens: 2048,
      cacheWriteTokens: 0,
      outputTokens: 517,
      reasoningTokens: 200,
    });
    // (1234 × 2.50 + 2048 × 1.25 + 517 × 10.00) / 1M = 0.010815
    expect(res.stamp.cost).toBe("0.010815");
  });

  it("Anthropic cache reads and writes are priced at their own rates, streamed or not", async () => {
    const usage = { input: 21, cached: 188_086, cacheWrite: 3000, output: 393 };
    anthropic.enqueue({ kind: "text", text: "x", usage }, { kind: "text", text: "y z", usage });
    const gw = gateway();
    const res = await gw.chat(ask("claude"));
    expect(res.stamp.usage).toMatchObject({
      inputTokens: 21,
      cachedInputTokens: 188_086,
      cacheWriteTokens: 3000,
      outputTokens: 393,
    });
    // (21 × 3 + 188,086 × 0.30 + 3,000 × 3.75 + 393 × 15) / 1M = 0.0736338
    expect(res.stamp.cost).toBe("0.0736338");
    const { last } = await collect(gw.stream(ask("claude")));
    expect(last.type === "done" && last.response.stamp.cost).toBe("0.0736338");
    expect(last.type === "done" && last.response.stamp.usage.cacheWriteTokens).toBe(3000);
  });
});
