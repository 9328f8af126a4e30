// The fake provider servers must speak the real wire formats: prove it with the official SDKs.
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { ANTHROPIC_DEFAULT_MODEL, startFakeAnthropic } from "../fakes/anthropic";
import type { FakeProvider } from "../fakes/http";
import { OPENAI_DEFAULT_MODEL, startFakeOpenAI } from "../fakes/openai";
import { EMBEDDING_DEFAULT_DIMENSIONS } from "../fakes/openai-embeddings";

/** Iterates to the end, keeping what was yielded and what was thrown (if anything). */
async function drain<T>(iterable: AsyncIterable<T>): Promise<{ items: T[]; error: unknown }> {
  const items: T[] = [];
  try {
    for await (const item of iterable) items.push(item);
  } catch (error) {
    return { items, error };
  }
  return { items, error: undefined };
}

/** Asserts the class and narrows to it (SDK error classes are values, awkward in type positions). */
function expectInstance<T>(value: unknown, cls: abstract new (...args: never[]) => T): T {
  expect(value).toBeInstanceOf(cls);
  return value as T;
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => expect.fail("expected the call to reject"),
    (error: unknown) => error,
  );
}

const weatherArgs = { city: "Zürich", units: "metric", days: [1, 2], detail: { wind: true } };

describe("fake OpenAI with the official SDK", () => {
  let fake: FakeProvider;
  let client: OpenAI;
  const user = [{ role: "user" as const, content: "hi" }];

  beforeAll(async () => {
    fake = await startFakeOpenAI();
    client = new OpenAI({ apiKey: "test", baseURL: fake.url, maxRetries: 0 });
  });
  afterAll(() => fake.close());
  beforeEach(() => fake.reset());

  it("non-stream text returns content, model and usage with cached and reasoning details", async () => {
    fake.enqueue({
      kind: "text",
      text: "Hello there",
      usage: { input: 20, cached: 30, output: 9, reasoning: 4 },
    });
    const res = await client.chat.completions.create({ model: "gpt-4o-mini", messages: user });
    expect(res.object).toBe("chat.completion");
    expect(res.id).toMatch(/^chatcmpl-/);
    expect(res.model).toBe(OPENAI_DEFAULT_MODEL);
    expect(res.choices[0]?.message).toMatchObject({ role: "assistant", content: "Hello there" });
    expect(res.choices[0]?.message.tool_calls).toBeUndefined();
    expect(res.choices[0]?.finish_reason).toBe("stop");
    expect(res.usage).toMatchObject({
      prompt_tokens: 50,
      completion_tokens: 9,
      total_tokens: 59,
      prompt_tokens_details: { cached_tokens: 30 },
      completion_tokens_details: { reasoning_tokens: 4 },
    });
  });

  it("default reply is 'ok' with default usage, and a reply's model overrides the default", async () => {
    fake.enqueue({ kind: "text", text: "x", model: "gpt-5-2025-08-07" });
    expect((await client.chat.completions.create({ model: "gpt-5", messages: user })).model).toBe(
      "gpt-5-2025-08-07",
    );
    const res = await client.chat.completions.create({ model: "m", messages: user });
    expect(res.choices[0]?.message.content).toBe("ok");
    expect(res.usage).toMatchObject({ prompt_tokens: 11, completion_tokens: 1, total_tokens: 12 });
  });

  it("stream text reassembles the text and yields the usage chunk when include_usage is set", async () => {
    fake.enqueue({ kind: "text", text: "The quick brown fox", usage: { input: 7, cached: 3 } });
    const stream = await client.chat.completions.create({
      model: "m",
      messages: user,
      stream: true,
      stream_options: { include_usage: true },
    });
    const { items, error } = await drain(stream);
    expect(error).toBeUndefined();
    expect(items[0]?.choices[0]?.delta.role).toBe("assistant");
    const contents = items.map((c) => c.choices[0]?.delta.content ?? "").filter(Boolean);
    expect(contents).toEqual(["The", " quick", " brown", " fox"]);
    expect(items.at(-2)?.choices[0]?.finish_reason).toBe("stop");
    const last = items.at(-1);
    expect(last?.choices).toEqual([]);
    expect(last?.usage).toMatchObject({
      prompt_tokens: 10,
      completion_tokens: 4,
      prompt_tokens_details: { cached_tokens: 3 },
    });
    // Every chunk but the last carries usage: null, as the real API does.
    expect(items.slice(0, -1).every((c) => c.usage === null)).toBe(true);
  });

  it("stream without include_usage has no usage chunk; custom chunks arrive as given", async () => {
    fake.enqueue({ kind: "text", text: "ab", chunks: ["a", "b"], chunkDelayMs: 5 });
    const stream = await client.chat.completions.create({ model: "m", messages: user, stream: true });
    const { items } = await drain(stream);
    expect(items.map((c) => c.choices[0]?.delta.content).filter(Boolean)).toEqual(["a", "b"]);
    expect(items.every((c) => c.choices.length === 1 && c.usage === undefined)).toBe(true);
  });

  it("tool call non-stream returns the function name and JSON arguments", async () => {
    fake.enqueue({ kind: "tool_calls", calls: [{ id: "call_abc", name: "get_weather", args: weatherArgs }] });
    const res = await client.chat.completions.create({ model: "m", messages: user });
    const choice = res.choices[0];
    expect(choice?.finish_reason).toBe("tool_calls");
    expect(choice?.message.content).toBeNull();
    const call = choice?.message.tool_calls?.[0];
    expect(call?.type === "function" && call.function.name).toBe("get_weather");
    expect(call?.id).toBe("call_abc");
    expect(call?.type === "function" && JSON.parse(call.function.arguments)).toEqual(weatherArgs);
  });

  it("streamed tool call arguments arrive in pieces that reassemble to the original JSON", async () => {
    fake.enqueue({
      kind: "tool_calls",
      calls: [
        { name: "get_weather", args: weatherArgs },
        { name: "noop", args: {} },
      ],
    });
    const stream = await client.chat.completions.create({ model: "m", messages: user, stream: true });
    const { items } = await drain(stream);
    const args = new Map<number, string[]>();
    const names = new Map<number, string>();
    for (const chunk of items) {
      for (const tc of chunk.choices[0]?.delta.tool_calls ?? []) {
        if (tc.function?.name) names.set(tc.index, tc.function.name);
        if (tc.function?.arguments)
          args.set(tc.index, [...(args.get(tc.index) ?? []), tc.function.arguments]);
      }
    }
    expect([...names.values()]).toEqual(["get_weather", "noop"]);
    expect(args.get(0)?.length).toBeGreaterThanOrEqual(2);
    expect(args.get(1)?.length).toBeGreaterThanOrEqual(2);
    expect(JSON.parse(args.get(0)?.join("") ?? "")).toEqual(weatherArgs);
    expect(JSON.parse(args.get(1)?.join("") ?? "")).toEqual({});
    expect(items.at(-1)?.choices[0]?.finish_reason).toBe("tool_calls");
    // The SDK's own accumulator agrees.
    fake.enqueue({ kind: "tool_calls", calls: [{ name: "get_weather", args: weatherArgs }] });
    const final = await client.chat.completions.stream({ model: "m", messages: user }).finalChatCompletion();
    const call = final.choices[0]?.message.tool_calls?.[0];
    expect(call?.type === "function" && JSON.parse(call.function.arguments)).toEqual(weatherArgs);
  });

  it("a tool result message sent back is recorded with role tool and tool_call_id", async () => {
    fake.enqueue({ kind: "tool_calls", calls: [{ name: "get_weather", args: weatherArgs }] });
    const first = await client.chat.completions.create({ model: "m", messages: user });
    const assistant = first.choices[0]!.message;
    const callId = assistant.tool_calls![0]!.id;
    const second = await client.chat.completions.create({
      model: "m",
      messages: [...user, assistant, { role: "tool", tool_call_id: callId, content: '{"temp":21}' }],
    });
    expect(second.choices[0]?.message.content).toBe("ok");
    const sent = fake.requests[1]?.body.messages as Array<Record<string, unknown>>;
    expect(sent).toHaveLength(3);
    expect(sent[1]).toMatchObject({ role: "assistant", tool_calls: [{ id: callId, type: "function" }] });
    expect(sent[2]).toEqual({ role: "tool", tool_call_id: callId, content: '{"temp":21}' });
  });

  it("error 500 throws an APIError with status 500 and the message", async () => {
    fake.enqueue({ kind: "error", status: 500, message: "The server had an error" });
    const err = expectInstance(
      await rejection(client.chat.completions.create({ model: "m", messages: user })),
      OpenAI.InternalServerError,
    );
    expect(err).toMatchObject({ status: 500, type: "server_error", message: "500 The server had an error" });
    expect(err.requestID).toMatch(/^req_/);
  });

  it("429 with retry-after shows the header on the SDK error", async () => {
    fake.enqueue({ kind: "error", status: 429, message: "Slow down", headers: { "retry-after": "7" } });
    const err = expectInstance(
      await rejection(client.chat.completions.create({ model: "m", messages: user })),
      OpenAI.RateLimitError,
    );
    expect(err.headers.get("retry-after")).toBe("7");
    expect(err).toMatchObject({ status: 429, type: "rate_limit_error", message: "429 Slow down" });
  });

  it("cut: the stream yields the first chunks, then iterating throws undici's 'terminated' TypeError", async () => {
    fake.enqueue({ kind: "cut", text: "one two three four", afterChunks: 2 });
    const stream = await client.chat.completions.create({ model: "m", messages: user, stream: true });
    const { items, error } = await drain(stream);
    expect(items.map((c) => c.choices[0]?.delta.content)).toEqual(["", "one", " two"]);
    // Not an OpenAI.APIError: the raw fetch body error escapes the SDK's iterator.
    expect(error).toBeInstanceOf(TypeError);
    expect(error).not.toBeInstanceOf(OpenAI.APIError);
    expect(error).toMatchObject({ message: "terminated", cause: { code: "UND_ERR_SOCKET" } });
  });

  it("cut on a non-stream request: the truncated body rejects with the same TypeError", async () => {
    fake.enqueue({ kind: "cut", text: "one two", afterChunks: 1 });
    const err = await rejection(client.chat.completions.create({ model: "m", messages: user }));
    expect(err).toBeInstanceOf(TypeError);
    expect(err).toMatchObject({ message: "terminated" });
  });

  it("hang: a call with timeout 300 rejects with APIConnectionTimeoutError", async () => {
    fake.enqueue({ kind: "hang" });
    const started = Date.now();
    const err = await rejection(
      client.chat.completions.create({ model: "m", messages: user }, { timeout: 300 }),
    );
    expect(err).toBeInstanceOf(OpenAI.APIConnectionTimeoutError);
    expect(err).toMatchObject({ message: "Request timed out." });
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it("hang_after_headers: the SDK timeout covers only the headers, so the stream waits until aborted", async () => {
    fake.enqueue({ kind: "hang_after_headers" });
    const stream = await client.chat.completions.create(
      { model: "m", messages: user, stream: true },
      { timeout: 300 },
    );
    const done = drain(stream);
    const early = await Promise.race([
      done,
      new Promise((resolve) => setTimeout(() => resolve("pending"), 700)),
    ]);
    expect(early).toBe("pending");
    stream.controller.abort();
    const { items, error } = await done;
    expect(items.map((c) => c.choices[0]?.delta.role)).toEqual(["assistant"]);
    // An abort ends the SDK iterator quietly.
    expect(error).toBeUndefined();
  });

  it("drop: the SDK rejects with APIConnectionError", async () => {
    fake.enqueue({ kind: "drop" });
    const err = await rejection(client.chat.completions.create({ model: "m", messages: user }));
    expect(err).toBeInstanceOf(OpenAI.APIConnectionError);
    expect(err).not.toBeInstanceOf(OpenAI.APIConnectionTimeoutError);
  });

  it("records method, path, the Authorization bearer header and the JSON body", async () => {
    await client.chat.completions.create({ model: "gpt-4o-mini", messages: user, temperature: 0 });
    expect(fake.requests).toHaveLength(1);
    const req = fake.requests[0]!;
    expect(req).toMatchObject({ method: "POST", path: "/v1/chat/completions" });
    expect(req.headers.authorization).toBe("Bearer test");
    expect(req.headers["content-type"]).toBe("application/json");
    expect(req.body).toEqual({ model: "gpt-4o-mini", messages: user, temperature: 0 });
  });

  it("an unknown route gets an OpenAI-shaped 404 and does not consume the queue", async () => {
    fake.enqueue({ kind: "text", text: "queued" });
    const err = await rejection(client.models.retrieve("gpt-4o"));
    expect(err).toBeInstanceOf(OpenAI.NotFoundError);
    const res = await client.chat.completions.create({ model: "m", messages: user });
    expect(res.choices[0]?.message.content).toBe("queued");
  });
});

describe("fake OpenAI: embeddings and responses with the official SDK", () => {
  let fake: FakeProvider;
  let client: OpenAI;

  beforeAll(async () => {
    fake = await startFakeOpenAI();
    client = new OpenAI({ apiKey: "test", baseURL: fake.url, maxRetries: 0 });
  });
  afterAll(() => fake.close());
  beforeEach(() => fake.reset());

  it("embeddings.create: one unit vector per input, usage by words, base64 (the SDK's default) decoded", async () => {
    const res = await client.embeddings.create({
      model: "text-embedding-3-small",
      input: ["the quick brown", "fox"],
    });
    expect(fake.requests[0]).toMatchObject({ path: "/v1/embeddings", body: { encoding_format: "base64" } });
    expect(res).toMatchObject({
      object: "list",
      model: "text-embedding-3-small",
      usage: { prompt_tokens: 4, total_tokens: 4 },
    });
    expect(res.data.map((d) => [d.object, d.index, d.embedding.length])).toEqual([
      ["embedding", 0, EMBEDDING_DEFAULT_DIMENSIONS],
      ["embedding", 1, EMBEDDING_DEFAULT_DIMENSIONS],
    ]);
    expect(Math.hypot(...res.data[0]!.embedding)).toBeCloseTo(1, 5);
    // Floats when asked for them: the same numbers, and the same text always embeds the same.
    const floats = await client.embeddings.create({
      model: "text-embedding-3-small",
      input: "fox",
      encoding_format: "float",
      dimensions: 8,
    });
    expect(floats.data[0]?.embedding).toHaveLength(8);
    const again = await client.embeddings.create({ model: "m", input: "fox", dimensions: 8 });
    expect(again.data[0]?.embedding).toEqual(floats.data[0]?.embedding);
    expect(again.model).toBe("m");
    expect((await client.embeddings.create({ model: "m", input: [1, 2, 3] })).usage.prompt_tokens).toBe(3);
  });

  it("embeddings errors use OpenAI's error shape", async () => {
    fake.enqueue({ kind: "error", status: 400, message: "Bad input" });
    const err = expectInstance(
      await rejection(client.embeddings.create({ model: "m", input: "x" })),
      OpenAI.BadRequestError,
    );
    expect(err).toMatchObject({ status: 400, type: "invalid_request_error", message: "400 Bad input" });
  });

  it("responses.create renders a text reply as a completed response with usage details", async () => {
    fake.enqueue({
      kind: "text",
      text: "Hello there",
      usage: { input: 20, cached: 30, output: 9, reasoning: 4 },
    });
    const res = await client.responses.create({
      model: "gpt-4o-mini",
      input: "hi",
      instructions: "be brief",
    });
    expect(fake.requests[0]?.path).toBe("/v1/responses");
    expect(res).toMatchObject({
      object: "response",
      status: "completed",
      model: OPENAI_DEFAULT_MODEL,
      instructions: "be brief",
      error: null,
    });
    expect(res.id).toMatch(/^resp_/);
    expect(res.output).toEqual([
      {
        id: expect.stringMatching(/^msg_/),
        type: "message",
        status: "completed",
        role: "assistant",
        content: [{ type: "output_text", text: "Hello there", annotations: [], logprobs: [] }],
      },
    ]);
    expect(res.output_text).toBe("Hello there");
    expect(res.usage).toEqual({
      input_tokens: 50,
      input_tokens_details: { cached_tokens: 30 },
      output_tokens: 9,
      output_tokens_details: { reasoning_tokens: 4 },
      total_tokens: 59,
    });
  });

  it("responses.create with tool calls returns function_call items", async () => {
    fake.enqueue({ kind: "tool_calls", calls: [{ id: "call_abc", name: "get_weather", args: weatherArgs }] });
    const res = await client.responses.create({ model: "m", input: "weather?" });
    expect(res.output).toEqual([
      {
        id: expect.stringMatching(/^fc_/),
        type: "function_call",
        status: "completed",
        call_id: "call_abc",
        name: "get_weather",
        arguments: JSON.stringify(weatherArgs),
      },
    ]);
  });

  it("responses.create stream: the real event sequence, numbered, ending with the full response", async () => {
    fake.enqueue({ kind: "text", text: "The quick brown fox", usage: { input: 7, output: 4 } });
    const stream = await client.responses.create({ model: "m", input: "hi", stream: true });
    const { items, error } = await drain(stream);
    expect(error).toBeUndefined();
    expect(items.map((e) => e.type)).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.content_part.added",
      ...Array(4).fill("response.output_text.delta"),
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.completed",
    ]);
    expect(items.map((e) => e.sequence_number)).toEqual(items.map((_, i) => i));
    const created = items[0];
    expect(created?.type === "response.created" && [created.response.status, created.response.usage]).toEqual(
      ["in_progress", null],
    );
    const deltas = items.flatMap((e) => (e.type === "response.output_text.delta" ? [e.delta] : []));
    expect(deltas).toEqual(["The", " quick", " brown", " fox"]);
    const done = items.find((e) => e.type === "response.output_text.done");
    expect(done?.type === "response.output_text.done" && done.text).toBe("The quick brown fox");
    const last = items.at(-1);
    if (last?.type !== "response.completed") throw new Error("expected response.completed last");
    expect(last.response.status).toBe("completed");
    expect(last.response.usage).toMatchObject({ input_tokens: 7, output_tokens: 4, total_tokens: 11 });
    expect(last.response.output[0]).toMatchObject({
      type: "message",
      content: [{ text: "The quick brown fox" }],
    });
    // Every event names itself on the SSE `event:` line too.
    const raw = await fetch(`${fake.url}/responses`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "m", input: "hi", stream: true }),
    }).then((r) => r.text());
    for (const block of raw.trim().split("\n\n")) {
      const [eventLine, dataLine] = block.split("\n");
      expect(eventLine?.slice("event: ".length)).toBe(
        JSON.parse(dataLine?.slice("data: ".length) ?? "").type,
      );
    }
  });

  it("the SDK's responses.stream helper accumulates text and streamed function-call arguments", async () => {
    fake.enqueue(
      { kind: "text", text: "Hello there" },
      { kind: "tool_calls", text: "Checking.", calls: [{ name: "get_weather", args: weatherArgs }] },
    );
    const text = await client.responses.stream({ model: "m", input: "hi" }).finalResponse();
    // The helper (unlike responses.create) does not add output_text; the message carries it.
    expect(text.output[0]).toMatchObject({
      type: "message",
      content: [{ type: "output_text", text: "Hello there" }],
    });
    const tools = client.responses.stream({ model: "m", input: "hi" });
    const argDeltas: string[] = [];
    tools.on("response.function_call_arguments.delta", (e) => argDeltas.push(e.delta));
    const final = await tools.finalResponse();
    expect(argDeltas.length).toBeGreaterThanOrEqual(2);
    expect(final.output.map((o) => o.type)).toEqual(["message", "function_call"]);
    const call = final.output[1];
    expect(call?.type === "function_call" && JSON.parse(call.arguments)).toEqual(weatherArgs);
  });
});

describe("raw replies send exact bytes on every route", () => {
  let openai: FakeProvider;
  let anthropic: FakeProvider;
  beforeAll(async () => {
    [openai, anthropic] = await Promise.all([startFakeOpenAI(), startFakeAnthropic()]);
  });
  afterAll(() => Promise.all([openai.close(), anthropic.close()]));
  beforeEach(() => {
    openai.reset();
    anthropic.reset();
  });

  const post = (url: string) =>
    fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });

  it("json: the body is exactly JSON.stringify of it, with the status and headers given", async () => {
    const json = { id: "x", nested: { ünïcode: "✓", list: [1, 2.5, null] }, extra_field: true };
    const routes = [
      `${openai.url}/chat/completions`,
      `${openai.url}/embeddings`,
      `${openai.url}/responses`,
      `${anthropic.url}/v1/messages`,
      `${anthropic.url}/v1/messages/count_tokens`,
    ];
    for (const url of routes) {
      const provider = url.startsWith(openai.url) ? openai : anthropic;
      provider.enqueue({ kind: "raw", status: 201, json, headers: { "x-upstream": "yes" } });
      const res = await post(url);
      expect([res.status, res.headers.get("x-upstream"), res.headers.get("content-type")]).toEqual([
        201,
        "yes",
        "application/json",
      ]);
      expect(await res.text()).toBe(JSON.stringify(json));
    }
  });

  it("sse: each event written as given (event line, JSON data, a string as-is), one write per event", async () => {
    openai.enqueue({
      kind: "raw",
      sse: [{ data: { a: 1 } }, { event: "custom.kind", data: { b: "two" } }, { data: "[DONE]" }],
      chunkDelayMs: 30,
    });
    const res = await post(`${openai.url}/chat/completions`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    const chunks: string[] = [];
    const decoder = new TextDecoder();
    for await (const part of res.body as unknown as AsyncIterable<Uint8Array>)
      chunks.push(decoder.decode(part));
    expect(chunks).toEqual([
      'data: {"a":1}\n\n',
      'event: custom.kind\ndata: {"b":"two"}\n\n',
      "data: [DONE]\n\n",
    ]);
  });

  it("body: sent verbatim, and a raw error status reaches the SDK as that status", async () => {
    anthropic.enqueue({ kind: "raw", body: "not json at all", headers: { "content-type": "text/plain" } });
    const res = await post(`${anthropic.url}/v1/messages`);
    expect([res.headers.get("content-type"), await res.text()]).toEqual(["text/plain", "not json at all"]);
    openai.enqueue({ kind: "raw", status: 418, json: { error: { message: "teapot", type: "odd" } } });
    const client = new OpenAI({ apiKey: "test", baseURL: openai.url, maxRetries: 0 });
    const err = expectInstance(
      await rejection(client.embeddings.create({ model: "m", input: "x" })),
      OpenAI.APIError,
    );
    expect(err).toMatchObject({ status: 418, type: "odd", message: "418 teapot" });
  });
});

describe("fake Anthropic with the official SDK", () => {
  let fake: FakeProvider;
  let client: Anthropic;
  // Not claude-sonnet-4-5: the SDK console.warns about deprecated request models.
  const base = { model: "claude-sonnet-4-6", max_tokens: 256 };
  const user = [{ role: "user" as const, content: "hi" }];

  beforeAll(async () => {
    fake = await startFakeAnthropic();
    client = new Anthropic({ apiKey: "test", baseURL: fake.url, maxRetries: 0 });
  });
  afterAll(() => fake.close());
  beforeEach(() => fake.reset());

  it("non-stream text returns content, model and usage with cache read and creation fields", async () => {
    fake.enqueue({
      kind: "text",
      text: "Hello there",
      usage: { input: 20, cached: 300, cacheWrite: 40, output: 9 },
    });
    const msg = await client.messages.create({ ...base, messages: user });
    expect(msg).toMatchObject({ type: "message", role: "assistant", model: ANTHROPIC_DEFAULT_MODEL });
    expect(msg.id).toMatch(/^msg_/);
    expect(msg.content).toEqual([{ type: "text", text: "Hello there" }]);
    expect(msg.stop_reason).toBe("end_turn");
    expect(msg.usage).toMatchObject({
      input_tokens: 20,
      output_tokens: 9,
      cache_read_input_tokens: 300,
      cache_creation_input_tokens: 40,
    });
  });

  it("stream: true yields the raw events in order, reassembling the text and usage", async () => {
    fake.enqueue({
      kind: "text",
      text: "The quick brown fox",
      usage: { input: 5, cached: 6, cacheWrite: 7 },
    });
    const stream = await client.messages.create({ ...base, messages: user, stream: true });
    const { items, error } = await drain(stream);
    expect(error).toBeUndefined();
    // The SDK swallows the ping event.
    expect(items.map((e) => e.type)).toEqual([
      "message_start",
      "content_block_start",
      ...Array(4).fill("content_block_delta"),
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
    const start = items[0];
    expect(start?.type === "message_start" && start.message.usage).toMatchObject({
      input_tokens: 5,
      cache_read_input_tokens: 6,
      cache_creation_input_tokens: 7,
      output_tokens: 1,
    });
    const text = items
      .map((e) => (e.type === "content_block_delta" && e.delta.type === "text_delta" ? e.delta.text : ""))
      .join("");
    expect(text).toBe("The quick brown fox");
    const delta = items.find((e) => e.type === "message_delta");
    expect(delta?.type === "message_delta" && [delta.delta.stop_reason, delta.usage.output_tokens]).toEqual([
      "end_turn",
      4,
    ]);
    expect(fake.requests[0]?.body.stream).toBe(true);
  });

  it("tool_use non-stream and streamed: input JSON arrives in pieces and parses back to the original", async () => {
    const reply = {
      kind: "tool_calls" as const,
      text: "Let me check.",
      calls: [{ id: "toolu_01abc", name: "get_weather", args: weatherArgs }],
    };
    fake.enqueue(reply, reply, reply);
    const msg = await client.messages.create({ ...base, messages: user });
    expect(msg.stop_reason).toBe("tool_use");
    expect(msg.content).toEqual([
      { type: "text", text: "Let me check." },
      { type: "tool_use", id: "toolu_01abc", name: "get_weather", input: weatherArgs },
    ]);

    const stream = await client.messages.create({ ...base, messages: user, stream: true });
    const { items } = await drain(stream);
    const toolStart = items.find(
      (e) => e.type === "content_block_start" && e.content_block.type === "tool_use",
    );
    expect(toolStart).toMatchObject({ index: 1, content_block: { id: "toolu_01abc", name: "get_weather" } });
    const pieces = items.flatMap((e) =>
      e.type === "content_block_delta" && e.delta.type === "input_json_delta" ? [e.delta.partial_json] : [],
    );
    expect(pieces.filter(Boolean).length).toBeGreaterThanOrEqual(2);
    expect(JSON.parse(pieces.join(""))).toEqual(weatherArgs);

    // The SDK's MessageStream accumulator parses the partial JSON into the same input.
    const final = await client.messages.stream({ ...base, messages: user }).finalMessage();
    expect(final.content[1]).toMatchObject({ type: "tool_use", input: weatherArgs });
    expect(final.stop_reason).toBe("tool_use");
  });

  it("a tool_result content block sent back is recorded in the request", async () => {
    fake.enqueue({ kind: "tool_calls", calls: [{ name: "get_weather", args: weatherArgs }] });
    const first = await client.messages.create({ ...base, messages: user });
    const toolUse = first.content.find((b) => b.type === "tool_use");
    if (toolUse?.type !== "tool_use") throw new Error("expected a tool_use block");
    expect(toolUse.id).toMatch(/^toolu_/);
    await client.messages.create({
      ...base,
      messages: [
        ...user,
        {
          role: "assistant",
          content: [{ type: "tool_use", id: toolUse.id, name: toolUse.name, input: toolUse.input }],
        },
        { role: "user", content: [{ type: "tool_result", tool_use_id: toolUse.id, content: '{"temp":21}' }] },
      ],
    });
    const sent = fake.requests[1]?.body.messages as Array<{ role: string; content: unknown }>;
    expect(sent).toHaveLength(3);
    expect(sent[2]).toEqual({
      role: "user",
      content: [{ type: "tool_result", tool_use_id: toolUse.id, content: '{"temp":21}' }],
    });
  });

  it("error 529 throws an OverloadedError; 500 an InternalServerError; both carry status and message", async () => {
    fake.enqueue(
      { kind: "error", status: 529, message: "Overloaded" },
      { kind: "error", status: 500, message: "Internal server error" },
    );
    const overloaded = expectInstance(
      await rejection(client.messages.create({ ...base, messages: user })),
      Anthropic.OverloadedError,
    );
    expect(overloaded).toMatchObject({ status: 529, type: "overloaded_error", apiMessage: "Overloaded" });
    // Unlike OpenAI, the SDK's message is the status plus the whole JSON body; apiMessage has the text.
    expect(overloaded.message).toBe(
      '529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
    );
    const internal = expectInstance(
      await rejection(client.messages.create({ ...base, messages: user })),
      Anthropic.InternalServerError,
    );
    expect(internal).toMatchObject({ status: 500, type: "api_error", apiMessage: "Internal server error" });
    expect(internal.requestID).toMatch(/^req_/);
  });

  it("429 with retry-after shows the header on the SDK error", async () => {
    fake.enqueue({ kind: "error", status: 429, message: "Rate limited", headers: { "retry-after": "3" } });
    const err = expectInstance(
      await rejection(client.messages.create({ ...base, messages: user })),
      Anthropic.RateLimitError,
    );
    expect(err.headers.get("retry-after")).toBe("3");
    expect(err).toMatchObject({ type: "rate_limit_error" });
  });

  it("cut: raw events stop after the first deltas and iterating throws a 'terminated' TypeError", async () => {
    fake.enqueue({ kind: "cut", text: "one two three four", afterChunks: 2 });
    const stream = await client.messages.create({ ...base, messages: user, stream: true });
    const { items, error } = await drain(stream);
    expect(items.map((e) => e.type)).toEqual([
      "message_start",
      "content_block_start",
      "content_block_delta",
      "content_block_delta",
    ]);
    expect(error).toBeInstanceOf(TypeError);
    expect(error).not.toBeInstanceOf(Anthropic.APIError);
    expect(error).toMatchObject({ message: "terminated", cause: { code: "UND_ERR_SOCKET" } });
    // The MessageStream helper wraps the same failure in a plain AnthropicError.
    fake.enqueue({ kind: "cut", text: "one two three four", afterChunks: 2 });
    const helperErr = await rejection(client.messages.stream({ ...base, messages: user }).finalMessage());
    expect(helperErr).toBeInstanceOf(Anthropic.AnthropicError);
    expect(helperErr).not.toBeInstanceOf(Anthropic.APIError);
    expect(helperErr).toMatchObject({ message: "terminated" });
  });

  it("hang: a call with timeout 300 rejects with APIConnectionTimeoutError", async () => {
    fake.enqueue({ kind: "hang" });
    const started = Date.now();
    const err = await rejection(client.messages.create({ ...base, messages: user }, { timeout: 300 }));
    expect(err).toBeInstanceOf(Anthropic.APIConnectionTimeoutError);
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it("hang_after_headers: message_start arrives, then nothing until the stream is aborted", async () => {
    fake.enqueue({ kind: "hang_after_headers" });
    const stream = await client.messages.create({ ...base, messages: user, stream: true }, { timeout: 300 });
    const done = drain(stream);
    const early = await Promise.race([
      done,
      new Promise((resolve) => setTimeout(() => resolve("pending"), 700)),
    ]);
    expect(early).toBe("pending");
    stream.controller.abort();
    const { items, error } = await done;
    expect(items.map((e) => e.type)).toEqual(["message_start"]);
    expect(error).toBeUndefined();
  });

  it("drop: the SDK rejects with APIConnectionError", async () => {
    fake.enqueue({ kind: "drop" });
    const err = await rejection(client.messages.create({ ...base, messages: user }));
    expect(err).toBeInstanceOf(Anthropic.APIConnectionError);
  });

  it("records the path, the auth headers and the JSON body (SDK 1.x sends the key as a Bearer token)", async () => {
    await client.messages.create({ ...base, system: "be brief", messages: user });
    const req = fake.requests[0]!;
    expect(req).toMatchObject({ method: "POST", path: "/v1/messages" });
    // @anthropic-ai/sdk 1.x sends apiKey as "Authorization: Bearer", not x-api-key.
    expect(req.headers.authorization).toBe("Bearer test");
    expect(req.headers["x-api-key"]).toBeUndefined();
    expect(req.headers["anthropic-version"]).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(req.body).toEqual({ ...base, system: "be brief", messages: user });
    // A client that sends x-api-key itself (the classic header) is recorded as such.
    const keyed = new Anthropic({
      apiKey: null,
      defaultHeaders: { "x-api-key": "sk-ant-fake" },
      baseURL: fake.url,
    });
    await keyed.messages.create({ ...base, messages: user });
    expect(fake.requests[1]?.headers["x-api-key"]).toBe("sk-ant-fake");
    expect(fake.requests[1]?.headers.authorization).toBeUndefined();
  });

  it("messages.countTokens answers input_tokens from the request's size, or the scripted usage.input", async () => {
    const small = await client.messages.countTokens({ model: base.model, messages: user });
    const large = await client.messages.countTokens({
      model: base.model,
      system: "You are a careful assistant who answers in full sentences.",
      messages: [{ role: "user", content: "hi ".repeat(200) }],
    });
    expect(fake.requests[0]?.path).toBe("/v1/messages/count_tokens");
    expect(small.input_tokens).toBeGreaterThan(0);
    expect(large.input_tokens).toBeGreaterThan(small.input_tokens + 100);
    fake.enqueue({ kind: "text", text: "", usage: { input: 1234 } });
    expect(await client.messages.countTokens({ model: base.model, messages: user })).toEqual({
      input_tokens: 1234,
    });
    fake.enqueue({ kind: "error", status: 529, message: "Overloaded" });
    expectInstance(
      await rejection(client.messages.countTokens({ model: base.model, messages: user })),
      Anthropic.OverloadedError,
    );
  });
});

describe("fake server lifecycle", () => {
  it("close() returns promptly even while a hang request is open", async () => {
    const fake = await startFakeOpenAI();
    fake.setDefault({ kind: "hang" });
    const client = new OpenAI({ apiKey: "test", baseURL: fake.url, maxRetries: 0 });
    const pending = rejection(
      client.chat.completions.create({ model: "m", messages: [{ role: "user", content: "x" }] }),
    );
    await vi.waitFor(() => expect(fake.requests).toHaveLength(1));
    const started = Date.now();
    await fake.close();
    expect(Date.now() - started).toBeLessThan(500);
    // The client sees the connection go away.
    expect(await pending).toBeInstanceOf(OpenAI.APIConnectionError);
  });
});
