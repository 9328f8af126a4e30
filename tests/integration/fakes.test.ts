// The fake provider servers must speak the real wire formats: prove it with the official SDKs.
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { ANTHROPIC_DEFAULT_MODEL, startFakeAnthropic } from "../fakes/anthropic";
import type { FakeProvider } from "../fakes/http";
import { OPENAI_DEFAULT_MODEL, startFakeOpenAI } from "../fakes/openai";

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
