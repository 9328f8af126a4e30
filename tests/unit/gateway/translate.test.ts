import { readFileSync } from "node:fs";
import type Anthropic from "@anthropic-ai/sdk";
import type OpenAI from "openai";
import { describe, expect, it } from "vitest";
import {
  anthropicToOpenAIChat,
  DEFAULT_MAX_TOKENS,
  type Json,
  OPENAI_TO_ANTHROPIC_FIELDS,
  openAIChatToAnthropic,
  translationTablesMarkdown,
  Untranslatable,
} from "@/lib/gateway/translate";

const toAnthropic = (body: Json, dropUnsupported = false) =>
  openAIChatToAnthropic(body, { model: "claude-x", dropUnsupported });
const toOpenAI = (body: Json, dropUnsupported = false) =>
  anthropicToOpenAIChat(body, { model: "gpt-x", dropUnsupported });
const strictly = { dropUnsupported: false, strict: true };

/** The field an Untranslatable names, or a failure when the call did not refuse. */
function refusedField(call: () => unknown): string {
  try {
    call();
  } catch (error) {
    if (error instanceof Untranslatable) return error.field;
    throw error;
  }
  throw new Error("expected the request to be refused");
}

const hi = [{ role: "user", content: "hi" }];

describe("OpenAI chat request -> Anthropic messages request", () => {
  it("translates a full request into a body the Anthropic SDK types accept", () => {
    const request: OpenAI.ChatCompletionCreateParams = {
      model: "gpt-4o",
      messages: [
        { role: "system", content: "Be brief." },
        { role: "developer", content: [{ type: "text", text: "Use metric units." }] },
        {
          role: "user",
          content: [
            { type: "text", text: "What is in these?" },
            { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } },
            { type: "image_url", image_url: { url: "https://example.com/cat.jpg", detail: "auto" } },
          ],
        },
        {
          role: "assistant",
          content: "Let me look.",
          tool_calls: [
            { id: "call_1", type: "function", function: { name: "lookup", arguments: '{"q":"cat"}' } },
            { id: "call_2", type: "function", function: { name: "lookup", arguments: '{"q":"dog"}' } },
          ],
        },
        { role: "tool", tool_call_id: "call_1", content: "a cat" },
        { role: "tool", tool_call_id: "call_2", content: [{ type: "text", text: "a dog" }] },
        { role: "user", content: "Thanks. Which is bigger?" },
      ],
      max_completion_tokens: 300,
      temperature: 1,
      top_p: 1,
      reasoning_effort: "high",
      stop: "END",
      stream: true,
      stream_options: { include_usage: true },
      n: 1,
      logprobs: false,
      presence_penalty: 0,
      frequency_penalty: 0,
      parallel_tool_calls: false,
      user: "user-42",
      tools: [
        {
          type: "function",
          function: {
            name: "lookup",
            description: "Look a thing up",
            parameters: { type: "object", properties: { q: { type: "string" } }, required: ["q"] },
            strict: true,
          },
        },
      ],
      tool_choice: "required",
      service_tier: "default",
      prompt_cache_key: "conversation-7",
    };
    const expected: Anthropic.MessageCreateParams = {
      model: "claude-x",
      system: [
        { type: "text", text: "Be brief." },
        { type: "text", text: "Use metric units." },
      ],
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "What is in these?" },
            { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } },
            { type: "image", source: { type: "url", url: "https://example.com/cat.jpg" } },
          ],
        },
        {
          role: "assistant",
          content: [
            { type: "text", text: "Let me look." },
            { type: "tool_use", id: "call_1", name: "lookup", input: { q: "cat" } },
            { type: "tool_use", id: "call_2", name: "lookup", input: { q: "dog" } },
          ],
        },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "call_1", content: "a cat" },
            { type: "tool_result", tool_use_id: "call_2", content: [{ type: "text", text: "a dog" }] },
            { type: "text", text: "Thanks. Which is bigger?" },
          ],
        },
      ],
      max_tokens: 300,
      output_config: { effort: "high" },
      stop_sequences: ["END"],
      stream: true,
      metadata: { user_id: "user-42" },
      tools: [
        {
          name: "lookup",
          description: "Look a thing up",
          input_schema: { type: "object", properties: { q: { type: "string" } }, required: ["q"] },
          strict: true,
        },
      ],
      tool_choice: { type: "any", disable_parallel_tool_use: true },
      service_tier: "standard_only",
    };
    const { body, dropped, structuredTool } = toAnthropic(request as unknown as Json);
    expect(body).toEqual(expected);
    expect(dropped).toEqual([]);
    expect(structuredTool).toBeUndefined();
  });

  it("keeps a single string system message a string, and defaults max_tokens (Anthropic requires it)", () => {
    const { body } = toAnthropic({ model: "m", messages: [{ role: "system", content: "S" }, ...hi] });
    expect(body).toEqual({ model: "claude-x", system: "S", messages: hi, max_tokens: DEFAULT_MAX_TOKENS });
  });

  it("maps max_tokens, stop lists and each tool_choice", () => {
    expect(toAnthropic({ model: "m", messages: hi, max_tokens: 12, stop: ["a", "b"] }).body).toMatchObject({
      max_tokens: 12,
      stop_sequences: ["a", "b"],
    });
    const tools = [{ type: "function", function: { name: "f" } }];
    const choice = (tool_choice: unknown) =>
      toAnthropic({ model: "m", messages: hi, tools, tool_choice }).body.tool_choice;
    expect(choice("auto")).toEqual({ type: "auto" });
    expect(choice("none")).toEqual({ type: "none" });
    expect(choice("required")).toEqual({ type: "any" });
    expect(choice({ type: "function", function: { name: "f" } })).toEqual({ type: "tool", name: "f" });
    expect(toAnthropic({ model: "m", messages: hi, tools }).body.tools).toEqual([
      { name: "f", input_schema: { type: "object", properties: {} } },
    ]);
    expect(
      toAnthropic({ model: "m", messages: hi, tools, parallel_tool_calls: false }).body.tool_choice,
    ).toEqual({ type: "auto", disable_parallel_tool_use: true });
  });

  it('turns reasoning_effort "none" into thinking disabled', () => {
    expect(toAnthropic({ model: "m", messages: hi, reasoning_effort: "none" }).body.thinking).toEqual({
      type: "disabled",
    });
  });

  it("maps safety_identifier and service_tier auto, and sends no parallel flag with tool_choice none", () => {
    const tools = [{ type: "function", function: { name: "f" } }];
    const { body } = toAnthropic({
      model: "m",
      messages: hi,
      safety_identifier: "hash-1",
      user: "hash-1",
      service_tier: "auto",
      tools,
      tool_choice: "none",
      parallel_tool_calls: false,
    });
    expect(body).toMatchObject({
      metadata: { user_id: "hash-1" },
      service_tier: "auto",
      tool_choice: { type: "none" },
    });
  });

  it("merges consecutive same-role messages so user and assistant alternate", () => {
    const { body } = toAnthropic({
      model: "m",
      messages: [
        { role: "user", content: "one" },
        { role: "user", content: [{ type: "text", text: "two" }] },
        { role: "assistant", content: "three" },
        { role: "user", content: "four" },
      ],
    });
    expect(body.messages).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "one" },
          { type: "text", text: "two" },
        ],
      },
      { role: "assistant", content: [{ type: "text", text: "three" }] },
      { role: "user", content: "four" },
    ]);
  });

  it("passes cache_control on text parts through as Anthropic's caching marker", () => {
    const cached = { type: "text", text: "long context", cache_control: { type: "ephemeral" } };
    const { body } = toAnthropic({
      model: "m",
      messages: [
        { role: "system", content: [cached] },
        { role: "user", content: [cached, { type: "text", text: "" }] },
      ],
    });
    expect(body.system).toEqual([cached]);
    expect(body.messages).toEqual([{ role: "user", content: [cached] }]);
  });

  it("turns a PDF file part into a document block", () => {
    const file = { type: "file", file: { filename: "a.pdf", file_data: "data:application/pdf;base64,JVBE" } };
    const { body } = toAnthropic({ model: "m", messages: [{ role: "user", content: [file] }] });
    expect(body.messages).toEqual([
      {
        role: "user",
        content: [
          {
            type: "document",
            source: { type: "base64", media_type: "application/pdf", data: "JVBE" },
            title: "a.pdf",
          },
        ],
      },
    ]);
  });

  it.each([
    ["n", { n: 2 }],
    ["logprobs", { logprobs: true }],
    ["top_logprobs", { top_logprobs: 3 }],
    ["logit_bias", { logit_bias: { "50256": -100 } }],
    ["seed", { seed: 7 }],
    ["presence_penalty", { presence_penalty: 0.5 }],
    ["frequency_penalty", { frequency_penalty: 0.5 }],
    ["modalities", { modalities: ["text", "audio"] }],
    ["audio", { audio: { voice: "alloy", format: "mp3" } }],
    ["prediction", { prediction: { type: "content", content: "x" } }],
    ["web_search_options", { web_search_options: {} }],
    ["reasoning_effort", { reasoning_effort: "minimal" }],
    ["top_p", { top_p: 0.9 }],
    ["verbosity", { verbosity: "low" }],
    ["functions", { functions: [{ name: "f" }] }],
    ["function_call", { function_call: "auto" }],
    ["temperature", { temperature: 0.7 }],
    [
      "tool_choice",
      { tools: [{ type: "function", function: { name: "f" } }], tool_choice: { type: "allowed_tools" } },
    ],
    ["tools.0", { tools: [{ type: "custom", custom: { name: "c" } }] }],
    ["tools.0.function.examples", { tools: [{ type: "function", function: { name: "f", examples: [] } }] }],
    ["brand_new_field", { brand_new_field: true }],
  ])("refuses %s, naming it", (field, extra) => {
    expect(refusedField(() => toAnthropic({ model: "m", messages: hi, ...extra }))).toBe(field);
  });

  it.each([
    [
      "messages.0.content.0",
      [{ role: "user", content: [{ type: "input_audio", input_audio: { data: "x", format: "wav" } }] }],
    ],
    ["messages.0.content.0", [{ role: "user", content: [{ type: "file", file: { file_id: "file-1" } }] }]],
    [
      "messages.0.content.0",
      [{ role: "user", content: [{ type: "image_url", image_url: { url: "data:image/tiff;base64,AA" } }] }],
    ],
    ["messages.1", [...hi, { role: "system", content: "late" }, ...hi]],
    ["messages.1", [...hi, { role: "assistant", content: "prefill" }]],
    [
      "messages.1.tool_calls.0.function.arguments",
      [
        ...hi,
        {
          role: "assistant",
          content: null,
          tool_calls: [{ id: "c", type: "function", function: { name: "f", arguments: "{not json" } }],
        },
        ...hi,
      ],
    ],
    ["messages.1.refusal", [...hi, { role: "assistant", content: null, refusal: "no" }, ...hi]],
    ["messages.0", [{ role: "function", name: "f", content: "x" }]],
    ["messages.0.weight", [{ role: "user", content: "hi", weight: 1 }]],
  ])("refuses %s in messages, naming it", (field, messages) => {
    expect(refusedField(() => toAnthropic({ model: "m", messages }))).toBe(field);
  });

  it.each([
    ["metadata", { metadata: { team: "a" } }],
    ["store", { store: true }],
    ["service_tier", { service_tier: "flex" }],
    ["prompt_cache_retention", { prompt_cache_retention: "24h" }],
    ["user", { user: "a", safety_identifier: "b" }],
    ["messages.0.name", { messages: [{ role: "user", content: "hi", name: "ann" }] }],
    [
      "messages.0.content.0.image_url.detail",
      {
        messages: [
          {
            role: "user",
            content: [{ type: "image_url", image_url: { url: "https://x/y.png", detail: "low" } }],
          },
        ],
      },
    ],
  ])("drops the hint %s and names it, or refuses it when the alias is strict", (field, extra) => {
    const request = { model: "m", messages: hi, ...extra };
    const { body, dropped } = toAnthropic(request);
    expect(dropped).toEqual([field]);
    expect(body).not.toHaveProperty("service_tier");
    expect(body).not.toHaveProperty("store");
    expect(JSON.stringify(body)).not.toMatch(/"name":"ann"|"detail"|"24h"|"team"/);
    if (field === "user") expect(body.metadata).toEqual({ user_id: "b" });
    expect(refusedField(() => openAIChatToAnthropic(request, { model: "c", ...strictly }))).toBe(field);
  });

  it("accepts the values that change nothing", () => {
    const { body, dropped } = toAnthropic({
      model: "m",
      messages: hi,
      n: null,
      logprobs: false,
      top_logprobs: 0,
      logit_bias: {},
      presence_penalty: 0,
      modalities: ["text"],
      temperature: 1,
      top_p: 1,
      verbosity: "medium",
      metadata: {},
      store: false,
      parallel_tool_calls: true,
      response_format: { type: "text" },
      stream_options: { include_usage: true },
    });
    expect(dropped).toEqual([]);
    expect(body).toEqual({ model: "claude-x", messages: hi, max_tokens: DEFAULT_MAX_TOKENS });
  });

  it("drops and lists what it cannot carry when the alias allows it", () => {
    const { body, dropped } = toAnthropic(
      {
        model: "m",
        messages: [
          {
            role: "user",
            name: "ann",
            content: [
              { type: "text", text: "hear this" },
              { type: "input_audio", input_audio: {} },
            ],
          },
        ],
        seed: 1,
        n: 3,
        temperature: 2,
        somewhere_new: 1,
      },
      true,
    );
    expect(dropped.sort()).toEqual([
      "messages.0.content.1",
      "messages.0.name",
      "n",
      "seed",
      "somewhere_new",
      "temperature",
    ]);
    expect(body).toEqual({
      model: "claude-x",
      messages: [{ role: "user", content: [{ type: "text", text: "hear this" }] }],
      max_tokens: DEFAULT_MAX_TOKENS,
    });
  });

  it("turns a json_schema response format into a forced tool and says which", () => {
    const schema = { type: "object", properties: { city: { type: "string" } }, required: ["city"] };
    const { body, structuredTool } = toAnthropic({
      model: "m",
      messages: hi,
      response_format: { type: "json_schema", json_schema: { name: "place", schema, strict: true } },
    });
    expect(structuredTool).toBe("place");
    expect(body.tools).toEqual([
      {
        name: "place",
        description: "Give your answer as this tool's input.",
        input_schema: schema,
        strict: true,
      },
    ]);
    expect(body.tool_choice).toEqual({ type: "tool", name: "place" });
    const json = toAnthropic({ model: "m", messages: hi, response_format: { type: "json_object" } });
    expect(json.structuredTool).toBe("json_object");
    expect(json.body.tool_choice).toEqual({ type: "tool", name: "json_object" });
  });

  it("refuses a response format that would stop the model calling the caller's tools", () => {
    const tools = [{ type: "function", function: { name: "f" } }];
    const response_format = { type: "json_object" };
    expect(refusedField(() => toAnthropic({ model: "m", messages: hi, tools, response_format }))).toBe(
      "response_format",
    );
    const none = toAnthropic({ model: "m", messages: hi, tools, response_format, tool_choice: "none" });
    expect(none.body.tool_choice).toEqual({ type: "tool", name: "json_object" });
  });

  it("documents every top-level field it knows", () => {
    for (const field of ["n", "seed", "stream_options", "response_format", "safety_identifier"])
      expect(OPENAI_TO_ANTHROPIC_FIELDS[field]).toBeTruthy();
  });
});

describe("Anthropic messages request -> OpenAI chat request", () => {
  it("translates a full request into a body the OpenAI SDK types accept", () => {
    const request: Anthropic.MessageCreateParams = {
      model: "claude-sonnet-4-5",
      max_tokens: 500,
      system: [{ type: "text", text: "Be brief.", cache_control: { type: "ephemeral" } }],
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "Look:" },
            { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBO" } },
            { type: "image", source: { type: "url", url: "https://example.com/a.png" } },
          ],
        },
        { role: "system", content: "Answer in French now." },
        {
          role: "assistant",
          content: [
            { type: "text", text: "Checking." },
            { type: "tool_use", id: "toolu_1", name: "lookup", input: { q: "a" } },
            { type: "tool_use", id: "toolu_2", name: "lookup", input: { q: "b" } },
          ],
        },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "toolu_1", content: "found a" },
            {
              type: "tool_result",
              tool_use_id: "toolu_2",
              content: [{ type: "text", text: "timeout" }],
              is_error: true,
            },
            { type: "text", text: "And?" },
          ],
        },
      ],
      stop_sequences: ["END"],
      output_config: { effort: "low" },
      stream: true,
      metadata: { user_id: "u-1" },
      tools: [
        {
          name: "lookup",
          description: "Look up",
          input_schema: { type: "object", properties: { q: { type: "string" } } },
          cache_control: { type: "ephemeral" },
        },
      ],
      tool_choice: { type: "any", disable_parallel_tool_use: true },
      thinking: { type: "disabled" },
      service_tier: "auto",
    };
    const expected: OpenAI.ChatCompletionCreateParams = {
      model: "gpt-x",
      messages: [
        { role: "system", content: "Be brief." },
        {
          role: "user",
          content: [
            { type: "text", text: "Look:" },
            { type: "image_url", image_url: { url: "data:image/png;base64,iVBO" } },
            { type: "image_url", image_url: { url: "https://example.com/a.png" } },
          ],
        },
        { role: "system", content: "Answer in French now." },
        {
          role: "assistant",
          content: "Checking.",
          tool_calls: [
            { id: "toolu_1", type: "function", function: { name: "lookup", arguments: '{"q":"a"}' } },
            { id: "toolu_2", type: "function", function: { name: "lookup", arguments: '{"q":"b"}' } },
          ],
        },
        { role: "tool", tool_call_id: "toolu_1", content: "found a" },
        { role: "tool", tool_call_id: "toolu_2", content: "Error: timeout" },
        { role: "user", content: "And?" },
      ],
      max_completion_tokens: 500,
      stop: ["END"],
      reasoning_effort: "low",
      user: "u-1",
      service_tier: "auto",
      tools: [
        {
          type: "function",
          function: {
            name: "lookup",
            description: "Look up",
            parameters: { type: "object", properties: { q: { type: "string" } } },
          },
        },
      ],
      tool_choice: "required",
      parallel_tool_calls: false,
      stream: true,
      stream_options: { include_usage: true },
    };
    const { body, dropped } = toOpenAI(request as unknown as Json);
    expect(body).toEqual(expected);
    expect(dropped).toEqual([]);
  });

  it("writes max_tokens where the candidate reads it, and maps each tool_choice", () => {
    const base = { model: "m", max_tokens: 9, messages: hi };
    expect(
      anthropicToOpenAIChat(base, { model: "g", dropUnsupported: false, maxTokensField: "max_tokens" }).body,
    ).toEqual({
      model: "g",
      messages: hi,
      max_tokens: 9,
    });
    const tools = [{ name: "f", input_schema: { type: "object" } }];
    const choice = (tool_choice: Json) => toOpenAI({ ...base, tools, tool_choice }).body.tool_choice;
    expect(choice({ type: "auto" })).toBe("auto");
    expect(choice({ type: "none" })).toBe("none");
    expect(choice({ type: "tool", name: "f" })).toEqual({ type: "function", function: { name: "f" } });
    expect(toOpenAI({ ...base, system: "S" }).body.messages).toEqual([
      { role: "system", content: "S" },
      ...hi,
    ]);
  });

  it("passes temperature and top_p from callers on Anthropic's older API version", () => {
    const { body } = toOpenAI({ model: "m", max_tokens: 5, messages: hi, temperature: 0.2, top_p: 0.8 });
    expect(body).toMatchObject({ temperature: 0.2, top_p: 0.8 });
  });

  it("turns output_config.format into a strict json_schema response format", () => {
    const schema = { type: "object", properties: { a: { type: "number" } } };
    const { body } = toOpenAI({
      model: "m",
      max_tokens: 5,
      messages: hi,
      output_config: { format: { type: "json_schema", schema } },
    });
    expect(body.response_format).toEqual({
      type: "json_schema",
      json_schema: { name: "response", schema, strict: true },
    });
  });

  it("turns a PDF document into a file part", () => {
    const doc = {
      type: "document",
      title: "r.pdf",
      source: { type: "base64", media_type: "application/pdf", data: "JVBE" },
    };
    const { body } = toOpenAI({ model: "m", max_tokens: 5, messages: [{ role: "user", content: [doc] }] });
    expect(body.messages).toEqual([
      {
        role: "user",
        content: [
          { type: "file", file: { filename: "r.pdf", file_data: "data:application/pdf;base64,JVBE" } },
        ],
      },
    ]);
  });

  it.each([
    ["top_k", { top_k: 5 }],
    ["thinking", { thinking: { type: "enabled", budget_tokens: 2000 } }],
    ["container", { container: "c-1" }],
    ["mcp_servers", { mcp_servers: [] }],
    ["inference_geo", { inference_geo: "us" }],
    ["output_config.effort", { output_config: { effort: "max" } }],
    ["metadata.team", { metadata: { team: "x" } }],
    ["tools.0", { tools: [{ type: "web_search_20250305", name: "web_search" }] }],
    [
      "tools.0.input_examples",
      { tools: [{ name: "f", input_schema: { type: "object" }, input_examples: [] }] },
    ],
    ["context_management", { context_management: {} }],
  ])("refuses %s, naming it", (field, extra) => {
    expect(refusedField(() => toOpenAI({ model: "m", max_tokens: 5, messages: hi, ...extra }))).toBe(field);
  });

  it("drops the hint speed: fast and names it, or refuses it when the alias is strict", () => {
    const request = { model: "m", max_tokens: 5, messages: hi, speed: "fast" };
    const { body, dropped } = toOpenAI(request);
    expect(dropped).toEqual(["speed"]);
    expect(body).not.toHaveProperty("speed");
    expect(refusedField(() => anthropicToOpenAIChat(request, { model: "g", ...strictly }))).toBe("speed");
  });

  it.each([
    ["messages.1", [...hi, { role: "assistant", content: "The answer is" }]],
    [
      "messages.1.content.0",
      [...hi, { role: "assistant", content: [{ type: "thinking", thinking: "hm", signature: "s" }] }, ...hi],
    ],
    [
      "messages.0.content.0.source",
      [{ role: "user", content: [{ type: "image", source: { type: "file", file_id: "f" } }] }],
    ],
    [
      "messages.0.content.0.citations",
      [{ role: "user", content: [{ type: "text", text: "x", citations: [{}] }] }],
    ],
    [
      "messages.0.content.0.content.0",
      [
        {
          role: "user",
          content: [
            {
              type: "tool_result",
              tool_use_id: "t",
              content: [{ type: "image", source: { type: "url", url: "https://x" } }],
            },
          ],
        },
      ],
    ],
  ])("refuses %s in messages, naming it", (field, messages) => {
    expect(refusedField(() => toOpenAI({ model: "m", max_tokens: 5, messages }))).toBe(field);
  });

  it("drops and lists what it cannot carry when the alias allows it, and never sends cache_control", () => {
    const { body, dropped } = toOpenAI(
      {
        model: "m",
        max_tokens: 5,
        top_k: 3,
        cache_control: { type: "ephemeral" },
        messages: [
          { role: "user", content: [{ type: "text", text: "hi", cache_control: { type: "ephemeral" } }] },
        ],
      },
      true,
    );
    expect(dropped).toEqual(["top_k"]);
    expect(body).toEqual({
      model: "gpt-x",
      messages: [{ role: "user", content: "hi" }],
      max_completion_tokens: 5,
    });
  });
});

describe("the field tables", () => {
  it("are what docs/translation.md shows", () => {
    expect(readFileSync("docs/translation.md", "utf8")).toContain(translationTablesMarkdown());
    // The tables live once, in docs/translation.md; the gateway guide links them rather than copying them.
    expect(readFileSync("docs/guides/gateway.md", "utf8")).toContain("(../translation.md)");
  });
});
