// Google Gemini / Vertex AI as a native provider, in isolation: the request translation and its refusals, the
// answer and stream read back as OpenAI chat (usage, tool calls, safety verdicts), and where a call is sent.
import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { classify, decide } from "@/lib/gateway/errors";
import { upstreamError } from "@/lib/gateway/forward/upstream";
import { GeminiProvider, GeminiStreamState } from "@/lib/gateway/native/gemini";
import { openAIChatToGemini } from "@/lib/gateway/translate/gemini";
import { type Json, Untranslatable } from "@/lib/gateway/translate/types";

const opts = { model: "gemini-2.5-flash", dropUnsupported: false };
const translate = (body: Json, o: Partial<typeof opts> & { strict?: boolean } = {}) =>
  openAIChatToGemini({ model: "g", ...body }, { ...opts, ...o });
const refusedField = (fn: () => unknown): string => {
  try {
    fn();
  } catch (error) {
    if (error instanceof Untranslatable) return error.field;
    throw error;
  }
  throw new Error("not refused");
};

describe("OpenAI chat -> Gemini generateContent", () => {
  it("puts system messages in systemInstruction and the turns in contents, user and model", () => {
    const { body } = translate({
      messages: [
        { role: "system", content: "Be brief." },
        { role: "developer", content: [{ type: "text", text: "In French." }] },
        { role: "user", content: "Hi" },
        { role: "assistant", content: "Salut." },
        { role: "user", content: [{ type: "text", text: "Again" }] },
      ],
      max_completion_tokens: 100,
      max_tokens: 5,
      temperature: 0.2,
      top_p: 0.9,
      stop: "END",
      seed: 7,
      presence_penalty: 0.5,
      frequency_penalty: 0.1,
      n: 2,
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(body).toEqual({
      contents: [
        { role: "user", parts: [{ text: "Hi" }] },
        { role: "model", parts: [{ text: "Salut." }] },
        { role: "user", parts: [{ text: "Again" }] },
      ],
      systemInstruction: { parts: [{ text: "Be brief." }, { text: "In French." }] },
      generationConfig: {
        maxOutputTokens: 100,
        temperature: 0.2,
        topP: 0.9,
        seed: 7,
        presencePenalty: 0.5,
        frequencyPenalty: 0.1,
        candidateCount: 2,
        stopSequences: ["END"],
      },
    });
  });

  it("sends images as inlineData (data: URLs) or fileData (http URLs of a known type), audio and files inline", () => {
    const { body, dropped } = translate({
      messages: [
        {
          role: "user",
          content: [
            { type: "image_url", image_url: { url: "data:image/png;base64,AAAA", detail: "high" } },
            { type: "image_url", image_url: { url: "https://example.com/cat.JPG?x=1" } },
            { type: "input_audio", input_audio: { data: "UklG", format: "wav" } },
            { type: "file", file: { file_data: "data:application/pdf;base64,JVBE", filename: "a.pdf" } },
          ],
        },
      ],
    });
    expect((body.contents as Json[])[0]).toEqual({
      role: "user",
      parts: [
        { inlineData: { mimeType: "image/png", data: "AAAA" } },
        { fileData: { mimeType: "image/jpeg", fileUri: "https://example.com/cat.JPG?x=1" } },
        { inlineData: { mimeType: "audio/wav", data: "UklG" } },
        { inlineData: { mimeType: "application/pdf", data: "JVBE" } },
      ],
    });
    expect(dropped).toEqual(["messages.0.content.0.image_url.detail"]);
    expect(
      refusedField(() =>
        translate({
          messages: [
            { role: "user", content: [{ type: "image_url", image_url: { url: "https://x.test/img" } }] },
          ],
        }),
      ),
    ).toBe("messages.0.content.0.image_url.url");
    expect(
      refusedField(() =>
        translate({ messages: [{ role: "user", content: [{ type: "file", file: { file_id: "file-1" } }] }] }),
      ),
    ).toBe("messages.0.content.0");
  });

  it("turns tool calls into functionCall parts and results into functionResponse parts named by the call's id", () => {
    const { body } = translate({
      messages: [
        { role: "user", content: "Weather in Paris and Rome?" },
        {
          role: "assistant",
          content: null,
          tool_calls: [
            { id: "call_a", type: "function", function: { name: "weather", arguments: '{"city":"Paris"}' } },
            { id: "call_b", type: "function", function: { name: "forecast", arguments: '{"city":"Rome"}' } },
          ],
        },
        { role: "tool", tool_call_id: "call_b", content: '{"temp": 20}' },
        { role: "tool", tool_call_id: "call_a", content: "sunny" },
      ],
      tools: [
        {
          type: "function",
          function: { name: "weather", description: "Weather now", parameters: { type: "object" } },
        },
        { type: "function", function: { name: "forecast" } },
      ],
      tool_choice: { type: "function", function: { name: "weather" } },
      parallel_tool_calls: true,
    });
    expect(body.contents).toEqual([
      { role: "user", parts: [{ text: "Weather in Paris and Rome?" }] },
      {
        role: "model",
        parts: [
          { functionCall: { name: "weather", args: { city: "Paris" } } },
          { functionCall: { name: "forecast", args: { city: "Rome" } } },
        ],
      },
      {
        role: "user",
        parts: [
          { functionResponse: { name: "forecast", response: { temp: 20 } } },
          { functionResponse: { name: "weather", response: { output: "sunny" } } },
        ],
      },
    ]);
    expect(body.tools).toEqual([
      {
        functionDeclarations: [
          { name: "weather", description: "Weather now", parametersJsonSchema: { type: "object" } },
          { name: "forecast" },
        ],
      },
    ]);
    expect(body.toolConfig).toEqual({
      functionCallingConfig: { mode: "ANY", allowedFunctionNames: ["weather"] },
    });
    for (const [choice, config] of [
      ["auto", { mode: "AUTO" }],
      ["required", { mode: "ANY" }],
      ["none", { mode: "NONE" }],
      [
        {
          type: "allowed_tools",
          allowed_tools: { mode: "required", tools: [{ type: "function", function: { name: "w" } }] },
        },
        { mode: "ANY", allowedFunctionNames: ["w"] },
      ],
    ] as const)
      expect(
        translate({ messages: [{ role: "user", content: "x" }], tool_choice: choice }).body.toolConfig,
      ).toEqual({
        functionCallingConfig: config,
      });
  });

  it("gives a later model's function-call history the placeholder thought signature Gemini 3 requires", () => {
    const messages = [
      { role: "user", content: "Weather?" },
      {
        role: "assistant",
        tool_calls: [
          { id: "a", type: "function", function: { name: "w", arguments: "{}" } },
          { id: "b", type: "function", function: { name: "w", arguments: "{}" } },
        ],
      },
      { role: "tool", tool_call_id: "a", content: "x" },
      { role: "tool", tool_call_id: "b", content: "y" },
    ];
    const later = translate({ messages }, { model: "gemini-3-pro-preview" }).body.contents as Json[];
    expect(later[1]).toEqual({
      role: "model",
      parts: [
        { functionCall: { name: "w", args: {} }, thoughtSignature: "skip_thought_signature_validator" },
        { functionCall: { name: "w", args: {} } },
      ],
    });
    const flash = translate({ messages }).body.contents as Json[];
    expect(JSON.stringify(flash)).not.toContain("thoughtSignature");
  });

  it("refuses a tool result whose call id no assistant message made", () => {
    expect(
      refusedField(() =>
        translate({
          messages: [
            { role: "user", content: "x" },
            { role: "tool", tool_call_id: "nope", content: "r" },
          ],
        }),
      ),
    ).toBe("messages.1.tool_call_id");
  });

  it("asks for JSON with a schema, and thinks by budget on 2.x models and by level on later ones", () => {
    const schema = { type: "object", properties: { a: { type: "string" } } };
    const { body } = translate({
      messages: [{ role: "user", content: "x" }],
      response_format: { type: "json_schema", json_schema: { name: "out", schema, strict: true } },
      reasoning_effort: "none",
    });
    expect(body.generationConfig).toEqual({
      responseMimeType: "application/json",
      responseJsonSchema: schema,
      thinkingConfig: { thinkingBudget: 0 },
    });
    const later = translate(
      {
        messages: [{ role: "user", content: "x" }],
        reasoning_effort: "high",
        response_format: { type: "json_object" },
      },
      { model: "gemini-3-pro-preview" },
    );
    expect(later.body.generationConfig).toEqual({
      responseMimeType: "application/json",
      thinkingConfig: { thinkingLevel: "high" },
    });
    expect(refusedField(() => translate({ messages: [], reasoning_effort: "xhigh" }))).toBe(
      "reasoning_effort",
    );
  });

  it("refuses by name what Gemini cannot carry, unknown fields too, and drops hints unless the alias is strict", () => {
    const m = [{ role: "user", content: "x" }];
    for (const [field, value] of [
      ["logprobs", true],
      ["top_logprobs", 2],
      ["logit_bias", { "1": 2 }],
      ["audio", { voice: "x" }],
      ["parallel_tool_calls", false],
      ["web_search_options", {}],
      ["functions", []],
      ["made_up", 1],
    ] as const)
      expect(refusedField(() => translate({ messages: m, [field]: value }))).toBe(field);
    expect(
      refusedField(() => translate({ messages: [...m, { role: "assistant", content: "prefill" }] })),
    ).toBe("messages.1");
    expect(
      refusedField(() =>
        translate({
          messages: [...m, { role: "assistant", content: "a" }, { role: "system", content: "late" }],
        }),
      ),
    ).toBe("messages.2");
    const hints = { messages: m, user: "u1", metadata: { a: "b" }, store: true, service_tier: "flex" };
    expect(translate(hints).dropped).toEqual(["user", "metadata", "store", "service_tier"]);
    expect(refusedField(() => translate(hints, { strict: true }))).toBe("user");
    expect(translate({ messages: m, logprobs: true }, { dropUnsupported: true }).dropped).toEqual([
      "logprobs",
    ]);
  });
});

describe("Gemini answers as OpenAI chat", () => {
  const provider = new GeminiProvider({ type: "gemini", apiKey: "k" });

  it("reads text, function calls (Gemini's id, else call_<n>) and usage with cached and thinking tokens", () => {
    const answer = provider.answer(
      {
        candidates: [
          {
            content: {
              role: "model",
              parts: [
                { text: "thinking...", thought: true },
                { text: "Let me check." },
                { functionCall: { name: "weather", args: { city: "Paris" } } },
                { functionCall: { id: "g-1", name: "forecast", args: {} } },
              ],
            },
            finishReason: "STOP",
            index: 0,
          },
        ],
        usageMetadata: {
          promptTokenCount: 1000,
          cachedContentTokenCount: 400,
          candidatesTokenCount: 50,
          thoughtsTokenCount: 30,
          totalTokenCount: 1080,
        },
        modelVersion: "gemini-2.5-flash-001",
        responseId: "abc",
      },
      "gemini-2.5-flash",
    );
    expect(answer).toMatchObject({
      id: "chatcmpl-abc",
      object: "chat.completion",
      model: "gemini-2.5-flash-001",
      choices: [
        {
          index: 0,
          finish_reason: "tool_calls",
          message: {
            role: "assistant",
            content: "Let me check.",
            tool_calls: [
              {
                id: "call_0",
                type: "function",
                function: { name: "weather", arguments: '{"city":"Paris"}' },
              },
              { id: "g-1", type: "function", function: { name: "forecast", arguments: "{}" } },
            ],
          },
        },
      ],
      usage: {
        prompt_tokens: 1000,
        completion_tokens: 80,
        total_tokens: 1080,
        prompt_tokens_details: { cached_tokens: 400 },
        completion_tokens_details: { reasoning_tokens: 30 },
      },
    });
    expect(answer.prompt_filter_results).toBeUndefined();
  });

  it("maps finish reasons, and shows safety blocks as Azure-shaped filter verdicts", () => {
    const finish = (reason: string) =>
      (
        provider.answer({ candidates: [{ content: { parts: [{ text: "x" }] }, finishReason: reason }] }, "m")
          .choices as Json[]
      )[0]!.finish_reason;
    expect(finish("STOP")).toBe("stop");
    expect(finish("MAX_TOKENS")).toBe("length");
    for (const r of ["SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII"])
      expect(finish(r)).toBe("content_filter");
    const blocked = provider.answer(
      {
        promptFeedback: {
          blockReason: "SAFETY",
          safetyRatings: [
            { category: "HARM_CATEGORY_DANGEROUS_CONTENT", probability: "HIGH", blocked: true },
            { category: "HARM_CATEGORY_HARASSMENT", probability: "NEGLIGIBLE" },
          ],
        },
      },
      "m",
    );
    expect(blocked).toMatchObject({
      choices: [{ finish_reason: "content_filter", message: { content: "" } }],
      prompt_filter_results: [
        {
          prompt_index: 0,
          content_filter_results: { dangerous_content: { filtered: true, severity: "high" } },
        },
      ],
    });
    const answerBlocked = provider.answer(
      {
        candidates: [
          {
            finishReason: "SAFETY",
            safetyRatings: [{ category: "HARM_CATEGORY_HATE_SPEECH", probability: "MEDIUM", blocked: true }],
          },
        ],
      },
      "m",
    );
    expect(answerBlocked).toMatchObject({
      prompt_filter_results: [],
      choices: [{ content_filter_results: { hate_speech: { filtered: true, severity: "medium" } } }],
    });
  });
});

const sseOf = (frames: unknown[]) => Readable.from(frames.map((f) => `data: ${JSON.stringify(f)}\r\n\r\n`));
async function chunksOf(readable: Readable): Promise<(Json | "[DONE]")[]> {
  let text = "";
  for await (const part of readable) text += String(part);
  return text
    .split("\n\n")
    .filter(Boolean)
    .map((f) => f.replace(/^data: /, ""))
    .map((d) => (d === "[DONE]" ? "[DONE]" : (JSON.parse(d) as Json)));
}

describe("Gemini streams as OpenAI chat chunks", () => {
  const provider = new GeminiProvider({ type: "gemini", apiKey: "k" });

  it("passes text and calls on as deltas, then the usage-only chunk and [DONE]", async () => {
    const chunks = await chunksOf(
      provider.stream(
        sseOf([
          {
            candidates: [{ content: { role: "model", parts: [{ text: "Hel" }] }, index: 0 }],
            responseId: "r1",
          },
          {
            candidates: [
              {
                content: {
                  role: "model",
                  parts: [{ text: "lo" }, { functionCall: { name: "f", args: { a: 1 } } }],
                },
                finishReason: "STOP",
                index: 0,
              },
            ],
            usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 4, totalTokenCount: 14 },
            modelVersion: "gemini-2.5-flash",
          },
        ]),
        "gemini-2.5-flash",
      ),
    );
    const deltas = chunks.filter((c): c is Json => c !== "[DONE]").map((c) => (c.choices as Json[])[0]);
    expect(deltas.map((d) => d?.delta)).toEqual([
      { role: "assistant", content: "" },
      { content: "Hel" },
      { content: "lo" },
      {
        tool_calls: [
          { index: 0, id: "call_0", type: "function", function: { name: "f", arguments: '{"a":1}' } },
        ],
      },
      {},
      undefined,
    ]);
    expect(deltas[4]?.finish_reason).toBe("tool_calls");
    expect(chunks.at(-2)).toMatchObject({
      choices: [],
      usage: { prompt_tokens: 10, completion_tokens: 4, total_tokens: 14 },
      id: "chatcmpl-r1",
    });
    expect(chunks.at(-1)).toBe("[DONE]");
  });

  it("ends without [DONE] when cut before a finish reason, and turns an error frame into an error chunk", async () => {
    const cut = await chunksOf(
      provider.stream(sseOf([{ candidates: [{ content: { parts: [{ text: "Hi" }] } }] }]), "m"),
    );
    expect(cut).not.toContain("[DONE]");
    const state = new GeminiStreamState("m");
    expect(
      state.push({
        data: JSON.stringify({ error: { code: 429, message: "Quota", status: "RESOURCE_EXHAUSTED" } }),
      }),
    ).toEqual([{ data: JSON.stringify({ error: { type: "rate_limit_exceeded", message: "Quota" } }) }]);
    expect(state.end()).toEqual([]);
  });

  it("answers a blocked prompt with a content_filter chunk carrying the prompt's verdicts", async () => {
    const chunks = await chunksOf(
      provider.stream(
        sseOf([
          {
            promptFeedback: { blockReason: "PROHIBITED_CONTENT" },
            usageMetadata: { promptTokenCount: 5, totalTokenCount: 5 },
          },
        ]),
        "m",
      ),
    );
    expect(chunks[0]).toMatchObject({
      choices: [{ finish_reason: "content_filter" }],
      prompt_filter_results: [{ content_filter_results: { prohibited_content: { filtered: true } } }],
    });
    expect(chunks.at(-1)).toBe("[DONE]");
  });
});

describe("where a Google call is sent", () => {
  const signal = new AbortController().signal;

  it("sends a Gemini API call to generativelanguage with the key in x-goog-api-key", async () => {
    const provider = new GeminiProvider({ type: "gemini", apiKey: "AIza-key" });
    expect(await provider.target("gemini-2.5-flash", false, "{}", signal)).toEqual({
      url: "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent",
      headers: {
        "content-type": "application/json",
        accept: "application/json",
        "x-goog-api-key": "AIza-key",
      },
    });
    const streamed = await new GeminiProvider({
      type: "gemini",
      apiKey: "k",
      baseUrl: "http://127.0.0.1:9/",
    }).target("gemini-2.5-pro", true, "{}", signal);
    expect(streamed.url).toBe(
      "http://127.0.0.1:9/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse",
    );
    expect(streamed.headers.accept).toBe("text/event-stream");
  });

  it("sends a Vertex AI call to the location's host (or the global one) with the service account's bearer token", async () => {
    const tokens = { token: async () => "ya29.token" };
    const regional = new GeminiProvider({ type: "vertex", project: "p-1", location: "europe-west4", tokens });
    expect(await regional.target("gemini-2.5-flash", true, "{}", signal)).toEqual({
      url: "https://europe-west4-aiplatform.googleapis.com/v1/projects/p-1/locations/europe-west4/publishers/google/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
      headers: {
        "content-type": "application/json",
        accept: "text/event-stream",
        authorization: "Bearer ya29.token",
      },
    });
    const global = new GeminiProvider({ type: "vertex", project: "p-1", location: "global", tokens });
    expect((await global.target("gemini-2.5-pro", false, "{}", signal)).url).toBe(
      "https://aiplatform.googleapis.com/v1/projects/p-1/locations/global/publishers/google/models/gemini-2.5-pro:generateContent",
    );
  });
});

describe("Google's error answers, classified", () => {
  const classified = async (status: number, body: unknown) => {
    const reply = {
      status,
      statusText: "",
      headers: {},
      kind: "whole" as const,
      body: Buffer.from(JSON.stringify(body)),
    };
    return classify(await upstreamError(reply), new AbortController().signal);
  };
  const google = (code: number, status: string, details?: unknown[]) => ({
    error: { code, message: `${status} happened`, status, ...(details ? { details } : {}) },
  });

  it("reads each status as the router must: 429 and 5xx retried, auth moves on, the caller's 400 and 404 fail", async () => {
    const cases: [number, string, string, string][] = [
      [400, "INVALID_ARGUMENT", "bad_request", "fail"],
      [401, "UNAUTHENTICATED", "auth", "next"],
      [403, "PERMISSION_DENIED", "auth", "next"],
      [404, "NOT_FOUND", "not_found", "next"],
      [429, "RESOURCE_EXHAUSTED", "rate_limited", "retry"],
      [500, "INTERNAL", "server", "retry"],
      [503, "UNAVAILABLE", "server", "retry"],
    ];
    for (const [code, status, errorClass, decision] of cases) {
      const c = await classified(code, google(code, status));
      expect(c).toMatchObject({ errorClass, status: code, message: `${status} happened` });
      expect(decide(c.errorClass)).toBe(decision);
    }
  });

  it("takes Google's 400 API_KEY_INVALID as an auth failure, and RetryInfo's delay as the wait", async () => {
    const invalidKey = await classified(
      400,
      google(400, "INVALID_ARGUMENT", [
        {
          "@type": "type.googleapis.com/google.rpc.ErrorInfo",
          reason: "API_KEY_INVALID",
          domain: "googleapis.com",
        },
      ]),
    );
    expect(invalidKey.errorClass).toBe("auth");
    const quota = await classified(
      429,
      google(429, "RESOURCE_EXHAUSTED", [
        { "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "37s" },
      ]),
    );
    expect(quota).toMatchObject({ errorClass: "rate_limited", retryAfterMs: 37_000 });
  });
});
