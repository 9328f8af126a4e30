import { describe, expect, it } from "vitest";
import type { WireFormat } from "@/lib/gateway/forward/formats";
import type { Json } from "@/lib/gateway/translate/types";
import {
  answerSegments,
  answerText,
  applyAnswer,
  applySegments,
  requestSegments,
} from "@/lib/guardrails/segments";

const texts = (format: WireFormat, body: Json) =>
  requestSegments(format, body).map((segment) => [segment.origin, segment.text]);

describe("requestSegments", () => {
  it("reads an OpenAI chat's roles, string and text-part content, and skips images and tool-call arguments", () => {
    const body = {
      model: "m",
      messages: [
        { role: "system", content: "be brief" },
        { role: "developer", content: [{ type: "text", text: "dev note" }] },
        {
          role: "user",
          content: [
            { type: "text", text: "look" },
            { type: "image_url", image_url: { url: "data:x" } },
          ],
        },
        { role: "assistant", content: null, tool_calls: [{ function: { name: "f", arguments: '{"a":1}' } }] },
        { role: "tool", tool_call_id: "1", content: "tool said" },
      ],
    };
    expect(texts("openai-chat", body)).toEqual([
      ["system", "be brief"],
      ["system", "dev note"],
      ["user", "look"],
      ["tool_result", "tool said"],
    ]);
  });

  it("reads Anthropic's system blocks, text, tool results and text documents", () => {
    const body = {
      system: [{ type: "text", text: "sys" }],
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "hi" },
            { type: "tool_result", tool_use_id: "t", content: [{ type: "text", text: "result" }] },
            { type: "tool_result", tool_use_id: "u", content: "plain result" },
            { type: "document", source: { type: "text", media_type: "text/plain", data: "doc body" } },
            { type: "document", source: { type: "base64", media_type: "application/pdf", data: "JVBER" } },
          ],
        },
        { role: "assistant", content: "sure" },
      ],
    };
    expect(texts("anthropic-messages", body)).toEqual([
      ["system", "sys"],
      ["user", "hi"],
      ["tool_result", "result"],
      ["tool_result", "plain result"],
      ["attachment", "doc body"],
      ["assistant", "sure"],
    ]);
    expect(texts("anthropic-messages", { system: "plain system", messages: [] })).toEqual([
      ["system", "plain system"],
    ]);
  });

  it("reads the Responses API's instructions, message items and function outputs", () => {
    const body = {
      instructions: "rules",
      input: [
        { role: "user", content: "typed" },
        {
          type: "message",
          role: "user",
          content: [{ type: "input_text", text: "part" }, { type: "input_image" }],
        },
        { type: "function_call", name: "f", arguments: "{}" },
        { type: "function_call_output", call_id: "c", output: "fn out" },
      ],
    };
    expect(texts("openai-responses", body)).toEqual([
      ["system", "rules"],
      ["user", "typed"],
      ["user", "part"],
      ["tool_result", "fn out"],
    ]);
    expect(texts("openai-responses", { input: "just text" })).toEqual([["user", "just text"]]);
  });

  it("reads embeddings' strings and skips token arrays", () => {
    expect(texts("openai-embeddings", { input: ["one", [1, 2, 3], "two"] })).toEqual([
      ["user", "one"],
      ["user", "two"],
    ]);
    expect(texts("openai-embeddings", { input: [1, 2, 3] })).toEqual([]);
  });

  it("reads the prompt or input of moderations, images, speech and transcriptions", () => {
    expect(
      texts("openai-moderations", { input: [{ type: "text", text: "mod" }, { type: "image_url" }] }),
    ).toEqual([["user", "mod"]]);
    expect(texts("openai-image-generations", { prompt: "a cat" })).toEqual([["user", "a cat"]]);
    expect(texts("openai-image-edits", { prompt: "bluer" })).toEqual([["user", "bluer"]]);
    expect(texts("openai-speech", { input: "say this" })).toEqual([["user", "say this"]]);
    expect(texts("openai-transcriptions", { prompt: "names: Ana" })).toEqual([["user", "names: Ana"]]);
    expect(texts("openai-translations", {})).toEqual([]);
  });
});

describe("applySegments", () => {
  it("sets new texts into a copy and leaves the body as it was", () => {
    const body = {
      messages: [
        { role: "user", content: [{ type: "text", text: "mail a@x.io" }] },
        { role: "user", content: "card 4111" },
      ],
    };
    const before = structuredClone(body);
    const segments = requestSegments("openai-chat", body);
    const redacted = applySegments(
      body,
      segments.map((segment) => ({ ...segment, text: segment.text.replace(/a@x\.io|4111/, "[X]") })),
    );
    expect(body).toEqual(before);
    expect(redacted).toEqual({
      messages: [
        { role: "user", content: [{ type: "text", text: "mail [X]" }] },
        { role: "user", content: "card [X]" },
      ],
    });
  });
});

describe("answers", () => {
  it("reads and rewrites every choice of an OpenAI chat answer", () => {
    const answer = { choices: [{ message: { content: "one" } }, { message: { content: "two" } }] };
    expect(answerText("openai-chat", answer)).toBe("onetwo");
    expect(applyAnswer("openai-chat", answer, ["ONE", "TWO"])).toEqual({
      choices: [{ message: { content: "ONE" } }, { message: { content: "TWO" } }],
    });
  });

  it("rewrites an Anthropic answer's text blocks and leaves its tool use alone", () => {
    const answer = {
      content: [
        { type: "text", text: "call it" },
        { type: "tool_use", id: "t", name: "f", input: { q: "x" } },
      ],
    };
    expect(answerSegments("anthropic-messages", answer).map((segment) => segment.origin)).toEqual(["output"]);
    expect(applyAnswer("anthropic-messages", answer, "done")).toEqual({
      content: [
        { type: "text", text: "done" },
        { type: "tool_use", id: "t", name: "f", input: { q: "x" } },
      ],
    });
  });

  it("puts a whole new text into a Responses answer's first output_text and empties the rest", () => {
    const answer = {
      output: [
        { type: "reasoning", summary: [] },
        {
          type: "message",
          content: [
            { type: "output_text", text: "a" },
            { type: "output_text", text: "b" },
          ],
        },
      ],
    };
    expect(answerText("openai-responses", answer)).toBe("ab");
    const rewritten = applyAnswer("openai-responses", answer, "whole");
    expect(answerSegments("openai-responses", rewritten).map((segment) => segment.text)).toEqual(["whole"]);
    expect(answer.output[1]!.content![0]!.text).toBe("a");
  });
});
