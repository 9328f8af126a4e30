import { describe, expect, it } from "vitest";
import {
  compile,
  LABEL_NAME,
  MissingVariablesError,
  PROMPT_NAME,
  variablesOf,
} from "@/features/prompts/server/template";

describe("prompt templates", () => {
  const chat = {
    type: "chat" as const,
    messages: [
      { role: "system" as const, content: "You help {{ company }} customers in {{lang}}." },
      { role: "user" as const, content: "Order {{order.id}} for {{company}}" },
    ],
  };

  it("lists the variables in order of first use, each once", () => {
    expect(variablesOf(chat)).toEqual(["company", "lang", "order.id"]);
    expect(variablesOf({ type: "text", text: "no variables {here} or {{ 1bad }}" })).toEqual([]);
  });

  it("fills every placeholder, and does not expand a value's own braces", () => {
    const out = compile(chat, { company: "Acme", lang: "French", "order.id": "{{lang}}", extra: "x" });
    expect(out).toEqual({
      type: "chat",
      messages: [
        { role: "system", content: "You help Acme customers in French." },
        { role: "user", content: "Order {{lang}} for Acme" },
      ],
    });
    expect(compile({ type: "text", text: "Hi {{name}}" }, { name: "Ann" })).toEqual({
      type: "text",
      text: "Hi Ann",
    });
  });

  it("names every missing variable", () => {
    let error: unknown;
    try {
      compile(chat, { company: "Acme" });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(MissingVariablesError);
    expect((error as MissingVariablesError).missing).toEqual(["lang", "order.id"]);
    expect((error as Error).message).toContain("lang, order.id");
  });

  it("does not take Object's keys as given variables", () => {
    expect(() => compile({ type: "text", text: "{{constructor}}" }, {})).toThrow(/constructor/);
  });

  it("accepts folder names and plain labels only", () => {
    expect(PROMPT_NAME.test("support/triage")).toBe(true);
    expect(PROMPT_NAME.test("assistant")).toBe(true);
    for (const bad of ["/x", "x/", "a//b", "a b", "", "../x"]) expect(PROMPT_NAME.test(bad)).toBe(false);
    expect(LABEL_NAME.test("production")).toBe(true);
    expect(LABEL_NAME.test("Prod")).toBe(false);
  });
});
