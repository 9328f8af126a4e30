import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import {
  anthropicMessageToOpenAIChat,
  anthropicStreamToOpenAIChat,
  type Json,
  openAIChatStreamToAnthropic,
  openAIChatToAnthropic,
  openAIChatToAnthropicMessage,
  type SseEvent,
  type StreamTranslator,
  UnreadableToolArguments,
} from "@/lib/gateway/translate";

const sse = (type: string, body: Json): SseEvent => ({
  event: type,
  data: JSON.stringify({ type, ...body }),
});
const chunk = (body: Json): SseEvent => ({ data: JSON.stringify(body) });
const run = (t: StreamTranslator, events: SseEvent[]) => [...events.flatMap((e) => t.push(e)), ...t.end()];
const parsed = (events: SseEvent[]) =>
  events.map((e) => (e.data === "[DONE]" ? "[DONE]" : JSON.parse(e.data)));
const wire = (events: SseEvent[]) =>
  events.map((e) => `${e.event ? `event: ${e.event}\n` : ""}data: ${e.data}\n\n`).join("");

/** An SDK client whose one HTTP answer is `body` (JSON or an SSE text). */
function fakeFetch(body: string, sseBody: boolean) {
  return async () =>
    new Response(body, { headers: { "content-type": sseBody ? "text/event-stream" : "application/json" } });
}

const anthropicMessage = {
  id: "msg_01XFDUDYJgAACzvnptvVoYEL",
  type: "message",
  role: "assistant",
  model: "claude-sonnet-5",
  content: [
    { type: "text", text: "Let me check " },
    { type: "text", text: "the weather." },
    {
      type: "tool_use",
      id: "toolu_01A09q90qw90lq917835lq9",
      name: "get_weather",
      input: { location: "Paris" },
    },
  ],
  stop_reason: "tool_use",
  stop_sequence: null,
  usage: {
    input_tokens: 100,
    cache_read_input_tokens: 20,
    cache_creation_input_tokens: 5,
    output_tokens: 30,
  },
};

describe("Anthropic message -> chat.completion", () => {
  it("joins the text, lists the tool calls and counts cached input into prompt tokens", () => {
    const completion = anthropicMessageToOpenAIChat(anthropicMessage, { model: "served" });
    const typed = completion as unknown as OpenAI.ChatCompletion;
    expect(typed.id).toBe("chatcmpl-01XFDUDYJgAACzvnptvVoYEL");
    expect(typed.object).toBe("chat.completion");
    expect(typed.model).toBe("served");
    expect(typeof typed.created).toBe("number");
    expect(typed.choices).toEqual([
      {
        index: 0,
        logprobs: null,
        finish_reason: "tool_calls",
        message: {
          role: "assistant",
          content: "Let me check the weather.",
          refusal: null,
          tool_calls: [
            {
              id: "toolu_01A09q90qw90lq917835lq9",
              type: "function",
              function: { name: "get_weather", arguments: '{"location":"Paris"}' },
            },
          ],
        },
      },
    ] satisfies OpenAI.ChatCompletion.Choice[]);
    expect(typed.usage).toEqual({
      prompt_tokens: 125,
      completion_tokens: 30,
      total_tokens: 155,
      prompt_tokens_details: { cached_tokens: 20 },
    });
  });

  it.each([
    ["end_turn", "stop"],
    ["stop_sequence", "stop"],
    ["max_tokens", "length"],
    ["tool_use", "tool_calls"],
    ["refusal", "content_filter"],
  ])("maps stop_reason %s to finish_reason %s", (stop_reason, finish) => {
    const completion = anthropicMessageToOpenAIChat(
      { ...anthropicMessage, content: [{ type: "text", text: "x" }], stop_reason },
      { model: "m" },
    );
    expect((completion.choices as Json[])[0]!.finish_reason).toBe(finish);
  });

  it("gives null content when the model only called tools", () => {
    const only = { ...anthropicMessage, content: [anthropicMessage.content[2]] };
    const message = (anthropicMessageToOpenAIChat(only, { model: "m" }).choices as Json[])[0]!
      .message as Json;
    expect(message.content).toBeNull();
  });
});

describe("chat.completion -> Anthropic message", () => {
  const completion = {
    id: "chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG",
    object: "chat.completion",
    created: 1741570283,
    model: "gpt-5",
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: "Checking.",
          refusal: null,
          tool_calls: [
            {
              id: "call_1",
              type: "function",
              function: { name: "get_weather", arguments: '{"location":"Paris"}' },
            },
          ],
        },
        logprobs: null,
        finish_reason: "tool_calls",
      },
    ],
    usage: {
      prompt_tokens: 120,
      completion_tokens: 15,
      total_tokens: 135,
      prompt_tokens_details: { cached_tokens: 100 },
    },
  };

  it("builds text and tool_use blocks, the stop reason and usage net of cached input", () => {
    const message = openAIChatToAnthropicMessage(completion, { model: "served" });
    const expected: Anthropic.Message = {
      id: "msg_B9MHDbslfkBeAs8l4bebGdFOJ6PeG",
      type: "message",
      role: "assistant",
      model: "served",
      content: [
        { type: "text", text: "Checking.", citations: null },
        {
          type: "tool_use",
          id: "call_1",
          name: "get_weather",
          input: { location: "Paris" },
          caller: { type: "direct" },
        },
      ],
      stop_reason: "tool_use",
      stop_sequence: null,
      stop_details: null,
      container: null,
      diagnostics: null,
      usage: {
        input_tokens: 20,
        output_tokens: 15,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 100,
        cache_creation: null,
        inference_geo: null,
        output_tokens_details: null,
        server_tool_use: null,
        service_tier: null,
        speed: null,
      },
    };
    // The SDK types name a few optional block fields (citations, caller) that a translation need not send.
    const content = (expected.content as unknown as Json[]).map(({ citations, caller, ...rest }) => rest);
    expect(message).toEqual({ ...expected, content });
  });

  it("maps finish reasons, and a refusal to stop_reason refusal", () => {
    const stop = (finish_reason: string, extra: Json = {}) =>
      openAIChatToAnthropicMessage(
        {
          ...completion,
          choices: [{ index: 0, finish_reason, message: { role: "assistant", content: "x", ...extra } }],
        },
        { model: "m" },
      ).stop_reason;
    expect(stop("stop")).toBe("end_turn");
    expect(stop("length")).toBe("max_tokens");
    expect(stop("content_filter")).toBe("refusal");
    expect(stop("stop", { content: null, refusal: "I can't help with that." })).toBe("refusal");
  });

  it("refuses tool arguments that are not JSON unless the answer was cut short", () => {
    const broken = (finish_reason: string) => ({
      ...completion,
      choices: [
        {
          index: 0,
          finish_reason,
          message: {
            role: "assistant",
            content: null,
            tool_calls: [{ id: "c", type: "function", function: { name: "f", arguments: '{"a": 1' } }],
          },
        },
      ],
    });
    expect(() => openAIChatToAnthropicMessage(broken("tool_calls"), { model: "m" })).toThrow(
      UnreadableToolArguments,
    );
    const cut = openAIChatToAnthropicMessage(broken("length"), { model: "m" });
    expect((cut.content as Json[])[0]).toMatchObject({ type: "tool_use", input: {} });
  });
});

describe("structured output through a forced Anthropic tool", () => {
  const schema = {
    type: "object",
    properties: { city: { type: "string" }, population: { type: "number" } },
    required: ["city", "population"],
    additionalProperties: false,
  };
  const request = {
    model: "gpt-5",
    messages: [{ role: "user" as const, content: "Largest city in France?" }],
    response_format: {
      type: "json_schema" as const,
      json_schema: { name: "city_info", schema, strict: true },
    },
  };

  it("comes back as JSON content the OpenAI SDK's parse() reads", async () => {
    const { structuredTool } = openAIChatToAnthropic(request, { model: "claude", dropUnsupported: false });
    const answer = {
      ...anthropicMessage,
      content: [
        { type: "tool_use", id: "toolu_9", name: "city_info", input: { city: "Paris", population: 2100000 } },
      ],
      stop_reason: "tool_use",
    };
    const completion = anthropicMessageToOpenAIChat(answer, { model: "claude", structuredTool });
    const client = new OpenAI({ apiKey: "k", fetch: fakeFetch(JSON.stringify(completion), false) });
    const result = await client.chat.completions.parse(request);
    expect(result.choices[0]!.finish_reason).toBe("stop");
    expect(result.choices[0]!.message.tool_calls ?? []).toEqual([]);
    expect(result.choices[0]!.message.parsed).toEqual({ city: "Paris", population: 2100000 });
  });

  it("streams the tool's input as content deltas", () => {
    const t = anthropicStreamToOpenAIChat({
      model: "claude",
      includeUsage: false,
      structuredTool: "city_info",
    });
    const out = parsed(
      run(t, [
        sse("message_start", { message: { id: "msg_1", usage: { input_tokens: 10, output_tokens: 1 } } }),
        sse("content_block_start", {
          index: 0,
          content_block: { type: "tool_use", id: "toolu_9", name: "city_info", input: {} },
        }),
        sse("content_block_delta", {
          index: 0,
          delta: { type: "input_json_delta", partial_json: '{"city": "Pa' },
        }),
        sse("content_block_delta", { index: 0, delta: { type: "input_json_delta", partial_json: 'ris"}' } }),
        sse("content_block_stop", { index: 0 }),
        sse("message_delta", {
          delta: { stop_reason: "tool_use", stop_sequence: null },
          usage: { output_tokens: 9 },
        }),
        sse("message_stop", {}),
      ]),
    );
    const deltas = out.slice(0, -1).map((c) => c.choices[0]);
    expect(deltas.map((c) => c.delta.content ?? null)).toEqual(["", '{"city": "Pa', 'ris"}', null]);
    expect(deltas.at(-1).finish_reason).toBe("stop");
    expect(out.at(-1)).toBe("[DONE]");
  });
});

describe("Anthropic stream -> OpenAI chunks", () => {
  const events = [
    sse("message_start", {
      message: {
        id: "msg_014p7gG3wDgGV9EUtLvnow3U",
        type: "message",
        role: "assistant",
        model: "claude-sonnet-5",
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: {
          input_tokens: 472,
          output_tokens: 2,
          cache_read_input_tokens: 100,
          cache_creation_input_tokens: 0,
        },
      },
    }),
    sse("content_block_start", { index: 0, content_block: { type: "text", text: "" } }),
    sse("ping", {}),
    sse("content_block_delta", { index: 0, delta: { type: "text_delta", text: "Okay, let me" } }),
    sse("content_block_delta", { index: 0, delta: { type: "text_delta", text: " check." } }),
    sse("content_block_stop", { index: 0 }),
    sse("content_block_start", {
      index: 1,
      content_block: {
        type: "tool_use",
        id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6",
        name: "get_weather",
        input: {},
      },
    }),
    sse("content_block_delta", { index: 1, delta: { type: "input_json_delta", partial_json: "" } }),
    sse("content_block_delta", {
      index: 1,
      delta: { type: "input_json_delta", partial_json: '{"location":' },
    }),
    sse("content_block_delta", { index: 1, delta: { type: "input_json_delta", partial_json: ' "Paris"}' } }),
    sse("content_block_stop", { index: 1 }),
    sse("content_block_start", {
      index: 2,
      content_block: { type: "tool_use", id: "toolu_2", name: "get_time", input: {} },
    }),
    sse("content_block_delta", {
      index: 2,
      delta: { type: "input_json_delta", partial_json: '{"tz": "CET"}' },
    }),
    sse("content_block_stop", { index: 2 }),
    sse("message_delta", {
      delta: { stop_reason: "tool_use", stop_sequence: null },
      usage: { output_tokens: 89 },
    }),
    sse("message_stop", {}),
  ];

  it("passes text and each tool call's argument pieces on as they arrive", () => {
    const out = parsed(run(anthropicStreamToOpenAIChat({ model: "served", includeUsage: true }), events));
    expect(out.at(-1)).toBe("[DONE]");
    const chunks = out.slice(0, -1);
    for (const c of chunks)
      expect(c).toMatchObject({
        id: "chatcmpl-014p7gG3wDgGV9EUtLvnow3U",
        object: "chat.completion.chunk",
        model: "served",
      });
    expect(chunks.map((c) => c.choices[0]?.delta ?? null)).toEqual([
      { role: "assistant", content: "" },
      { content: "Okay, let me" },
      { content: " check." },
      {
        tool_calls: [
          {
            index: 0,
            id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6",
            type: "function",
            function: { name: "get_weather", arguments: "" },
          },
        ],
      },
      { tool_calls: [{ index: 0, function: { arguments: '{"location":' } }] },
      { tool_calls: [{ index: 0, function: { arguments: ' "Paris"}' } }] },
      {
        tool_calls: [
          { index: 1, id: "toolu_2", type: "function", function: { name: "get_time", arguments: "" } },
        ],
      },
      { tool_calls: [{ index: 1, function: { arguments: '{"tz": "CET"}' } }] },
      {},
      null,
    ]);
    expect(chunks.at(-2).choices[0].finish_reason).toBe("tool_calls");
    expect(chunks.at(-1)).toMatchObject({
      choices: [],
      usage: {
        prompt_tokens: 572,
        completion_tokens: 89,
        total_tokens: 661,
        prompt_tokens_details: { cached_tokens: 100 },
      },
    });
  });

  it("sends no usage chunk unless asked", () => {
    const out = parsed(run(anthropicStreamToOpenAIChat({ model: "m", includeUsage: false }), events));
    expect(out.filter((c) => c !== "[DONE]" && c.usage)).toEqual([]);
  });

  it("is a stream the OpenAI SDK accumulates into the same completion", async () => {
    const body = wire(run(anthropicStreamToOpenAIChat({ model: "served", includeUsage: true }), events));
    const client = new OpenAI({ apiKey: "k", fetch: fakeFetch(body, true) });
    const stream = client.chat.completions.stream({
      model: "x",
      messages: [{ role: "user", content: "hi" }],
    });
    const final = await stream.finalChatCompletion();
    expect(final.choices[0]!.message.content).toBe("Okay, let me check.");
    expect(final.choices[0]!.message.tool_calls).toMatchObject([
      {
        id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6",
        function: { name: "get_weather", arguments: '{"location": "Paris"}' },
      },
      { id: "toolu_2", function: { name: "get_time", arguments: '{"tz": "CET"}' } },
    ]);
    expect(final.choices[0]!.finish_reason).toBe("tool_calls");
  });

  it("passes an upstream error on in OpenAI's shape", () => {
    const t = anthropicStreamToOpenAIChat({ model: "m", includeUsage: false });
    const out = parsed(t.push(sse("error", { error: { type: "overloaded_error", message: "Overloaded" } })));
    expect(out).toEqual([
      { error: { message: "Overloaded", type: "overloaded_error", param: null, code: null } },
    ]);
  });
});

describe("OpenAI chunks -> Anthropic stream", () => {
  const base = {
    id: "chatcmpl-123",
    object: "chat.completion.chunk",
    created: 1694268190,
    model: "gpt-5",
    usage: null,
  };
  const delta = (d: Json, finish_reason: string | null = null) =>
    chunk({ ...base, choices: [{ index: 0, delta: d, logprobs: null, finish_reason }] });
  const events = [
    delta({ role: "assistant", content: "", refusal: null }),
    delta({ content: "Let me" }),
    delta({ content: " look." }),
    delta({
      tool_calls: [
        { index: 0, id: "call_a", type: "function", function: { name: "get_weather", arguments: "" } },
      ],
    }),
    delta({ tool_calls: [{ index: 0, function: { arguments: '{"loc' } }] }),
    delta({ tool_calls: [{ index: 0, function: { arguments: 'ation": "Paris"}' } }] }),
    delta({
      tool_calls: [
        { index: 1, id: "call_b", type: "function", function: { name: "get_time", arguments: "" } },
      ],
    }),
    delta({ tool_calls: [{ index: 1, function: { arguments: "{}" } }] }),
    delta({}, "tool_calls"),
    chunk({
      ...base,
      choices: [],
      usage: {
        prompt_tokens: 50,
        completion_tokens: 20,
        total_tokens: 70,
        prompt_tokens_details: { cached_tokens: 10 },
      },
    }),
    { data: "[DONE]" },
  ];

  it("opens one block at a time, streams argument pieces, and waits for usage before message_delta", () => {
    const out = run(openAIChatStreamToAnthropic({ model: "served" }), events);
    expect(out.map((e) => e.event)).toEqual([
      "message_start",
      "content_block_start",
      "content_block_delta",
      "content_block_delta",
      "content_block_stop",
      "content_block_start",
      "content_block_delta",
      "content_block_delta",
      "content_block_stop",
      "content_block_start",
      "content_block_delta",
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
    const data = parsed(out);
    for (const [i, e] of out.entries()) expect(data[i].type).toBe(e.event);
    expect(data[0].message).toMatchObject({ id: "msg_123", model: "served", role: "assistant", content: [] });
    expect(data[5]).toEqual({
      type: "content_block_start",
      index: 1,
      content_block: { type: "tool_use", id: "call_a", name: "get_weather", input: {} },
    });
    expect(data[6].delta).toEqual({ type: "input_json_delta", partial_json: '{"loc' });
    expect(data[7].delta).toEqual({ type: "input_json_delta", partial_json: 'ation": "Paris"}' });
    expect(data[12]).toEqual({
      type: "message_delta",
      delta: { stop_reason: "tool_use", stop_sequence: null },
      usage: { input_tokens: 40, output_tokens: 20, cache_read_input_tokens: 10 },
    });
  });

  it("still ends the message when usage never comes", () => {
    const out = parsed(
      run(openAIChatStreamToAnthropic({ model: "m" }), [
        delta({ content: "Hi" }),
        delta({}, "stop"),
        { data: "[DONE]" },
      ]),
    );
    expect(out.map((e) => e.type)).toEqual([
      "message_start",
      "content_block_start",
      "content_block_delta",
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
    expect(out[4].delta.stop_reason).toBe("end_turn");
  });

  it("takes usage sent in the finishing chunk itself", () => {
    const t = openAIChatStreamToAnthropic({ model: "m" });
    const last = chunk({
      ...base,
      choices: [{ index: 0, delta: {}, finish_reason: "length" }],
      usage: { prompt_tokens: 5, completion_tokens: 7 },
    });
    const out = parsed([...t.push(delta({ content: "Hi" })), ...t.push(last)]);
    expect(out.at(-2)).toMatchObject({
      type: "message_delta",
      delta: { stop_reason: "max_tokens" },
      usage: { output_tokens: 7, input_tokens: 5 },
    });
    expect(t.push({ data: "[DONE]" })).toEqual([]);
    expect(t.end()).toEqual([]);
  });

  it("is a stream the Anthropic SDK accumulates into the same message", async () => {
    const body = wire(run(openAIChatStreamToAnthropic({ model: "served" }), events));
    const client = new Anthropic({ apiKey: "k", fetch: fakeFetch(body, true) });
    const message = await client.messages
      .stream({ model: "x", max_tokens: 10, messages: [{ role: "user", content: "hi" }] })
      .finalMessage();
    expect(message.content).toMatchObject([
      { type: "text", text: "Let me look." },
      { type: "tool_use", id: "call_a", name: "get_weather", input: { location: "Paris" } },
      { type: "tool_use", id: "call_b", name: "get_time", input: {} },
    ]);
    expect(message.stop_reason).toBe("tool_use");
    expect(message.usage).toMatchObject({ input_tokens: 40, output_tokens: 20, cache_read_input_tokens: 10 });
  });
});
