import { describe, expect, it, vi } from "vitest";
import { createGuardrailEngine } from "@/lib/guardrails/engine";
import { Pseudonyms } from "@/lib/guardrails/pseudonymise";
import type { GuardrailHit } from "@/lib/guardrails/types";
import { fakeCompile, fakeDependencies, rule } from "./fakes";

const pii = rule({ id: "pii", check: { type: "pii" }, action: "redact" });
const secrets = rule({ id: "keys", name: "AWS keys", check: { type: "secrets" }, action: "block" });

describe("the guardrail engine", () => {
  it("passes text no rule hits, with no headers and no events", async () => {
    const engine = createGuardrailEngine(fakeDependencies());
    const result = await engine.evaluate("input", [{ text: "hello", origin: "user" }], [pii, secrets]);
    expect(result).toMatchObject({ outcome: "passed", texts: ["hello"], headers: {}, events: [] });
    expect(result.blockedBy).toBeUndefined();
  });

  it("redacts spans with typed placeholders and keeps no matched text in its result", async () => {
    const engine = createGuardrailEngine(fakeDependencies());
    const segments = [
      { text: "mail bob@example.com, card 4111 1111 1111 1111", origin: "user" as const },
      { text: "nothing here", origin: "system" as const },
    ];
    const result = await engine.evaluate("input", segments, [pii]);
    expect(result.outcome).toBe("redacted");
    expect(result.texts).toEqual(["mail [EMAIL], card [PAYMENT_CARD]", "nothing here"]);
    expect(result.rules[0]!.hits.map((hit) => [hit.entity, hit.segment, hit.start, hit.end])).toEqual([
      ["email", 0, 5, 20],
      ["payment_card", 0, 27, 46],
    ]);
    expect(JSON.stringify(result)).not.toContain("bob@example.com");
    expect(result.headers["x-tollgate-guardrail"]).toBe('redacted;rule="pii";entities="email payment_card"');
    expect(result.events).toEqual([
      expect.objectContaining({ code: "guardrail_redacted", blocking: false, ruleId: "pii" }),
    ]);
  });

  it("names a secret's kind in its placeholder", async () => {
    const engine = createGuardrailEngine(fakeDependencies());
    const keys = rule({ id: "keys", check: { type: "secrets" }, action: "redact" });
    const result = await engine.evaluate(
      "input",
      [{ text: "key AKIAABCDEFGHIJKLMNOP.", origin: "user" }],
      [keys],
    );
    expect(result.texts).toEqual(["key [SECRET:aws_access_key]."]);
  });

  it("merges overlapping spans of several rules into one placeholder named after the longest", async () => {
    const engine = createGuardrailEngine(fakeDependencies());
    const domain = rule({
      id: "domain",
      check: { type: "regex", pattern: "example\\.com", label: "domain" },
      action: "redact",
    });
    const result = await engine.evaluate(
      "input",
      [{ text: "to bob@example.com now", origin: "user" }],
      [domain, pii],
    );
    expect(result.texts).toEqual(["to [EMAIL] now"]);
  });

  it("counts offsets in UTF-16 units, so spans after emoji land where they were found", async () => {
    const engine = createGuardrailEngine(fakeDependencies());
    const text = "👋🏽 hi 🎉 bob@example.com 🎉";
    const result = await engine.evaluate("input", [{ text, origin: "user" }], [pii]);
    expect(result.texts).toEqual(["👋🏽 hi 🎉 [EMAIL] 🎉"]);
  });

  it("widens a span that splits an emoji instead of leaving half of it", async () => {
    const halfEmoji = (text: string): GuardrailHit[] => {
      const at = text.indexOf("🎉");
      return [{ check: "regex", entity: "party", start: at + 1, end: at + 2, confidence: 1 }];
    };
    const engine = createGuardrailEngine(fakeDependencies({ compile: () => halfEmoji }));
    const party = rule({ id: "party", check: { type: "regex", pattern: "x" }, action: "redact" });
    const result = await engine.evaluate("input", [{ text: "a🎉b", origin: "user" }], [party]);
    expect(result.texts).toEqual(["a[PARTY]b"]);
  });

  it("blocks on the first blocking rule in order and leaves the texts as they were", async () => {
    const engine = createGuardrailEngine(fakeDependencies());
    const text = "bob@example.com AKIAABCDEFGHIJKLMNOP";
    const result = await engine.evaluate("input", [{ text, origin: "user" }], [pii, secrets]);
    expect(result.outcome).toBe("blocked");
    expect(result.blockedBy).toEqual({ ruleId: "keys", ruleName: "AWS keys", entity: "aws_access_key" });
    expect(result.texts).toEqual([text]);
    expect(result.events.find((event) => event.code === "guardrail_blocked")).toMatchObject({
      blocking: true,
    });
  });

  it("takes the strongest action as the outcome and announces warnings but not logs", async () => {
    const engine = createGuardrailEngine(fakeDependencies());
    const warn = rule({
      id: "warn",
      check: { type: "deny_list", terms: ["Project X"], label: "codename" },
      action: "warn",
    });
    const log = rule({ id: "log", check: { type: "pii" }, action: "log" });
    const result = await engine.evaluate(
      "input",
      [{ text: "Project X: bob@example.com", origin: "user" }],
      [log, warn],
    );
    expect(result.outcome).toBe("warned");
    expect(result.headers["x-tollgate-guardrail"]).toBe('warned;rule="warn";entities="codename"');
    expect(result.events.map((event) => event.code)).toEqual(["guardrail_logged", "guardrail_warned"]);
  });

  it("numbers reversible placeholders in the call's pseudonyms, the same original twice alike", async () => {
    const engine = createGuardrailEngine(fakeDependencies());
    const pseudonyms = new Pseudonyms();
    const reversible = { ...pii, reversible: true };
    const segments = [
      { text: "a@x.io and b@x.io", origin: "user" as const },
      { text: "again a@x.io", origin: "user" as const },
    ];
    const result = await engine.evaluate("input", segments, [reversible], { pseudonyms });
    expect(result.texts).toEqual(["[EMAIL_1] and [EMAIL_2]", "again [EMAIL_1]"]);
    expect(pseudonyms.restore("Reply to [EMAIL_2]")).toBe("Reply to b@x.io");
  });

  it("blocks, saying the check could not run, when a check that fails is closed", async () => {
    const engine = createGuardrailEngine(fakeDependencies());
    const broken = rule({
      id: "bad",
      check: { type: "regex", pattern: "(" },
      action: "warn",
      onError: "closed",
    });
    const result = await engine.evaluate("input", [{ text: "x", origin: "user" }], [broken]);
    expect(result.outcome).toBe("blocked");
    expect(result.blockedBy).toEqual({ ruleId: "bad", ruleName: "bad", entity: "check_failed" });
    expect(result.rules[0]!.error).toMatchObject({ onError: "closed" });
    expect(result.events[0]).toMatchObject({ code: "guardrail_check_failed", blocking: true });
    expect(result.events[0]!.message).toContain("could not run");
  });

  it("passes, with an event and a header saying so, when a check that fails is open", async () => {
    const engine = createGuardrailEngine(fakeDependencies());
    const broken = rule({
      id: "bad",
      check: { type: "regex", pattern: "(" },
      action: "block",
      onError: "open",
    });
    const result = await engine.evaluate("input", [{ text: "x", origin: "user" }], [broken]);
    expect(result.outcome).toBe("passed");
    expect(result.blockedBy).toBeUndefined();
    expect(result.headers["x-tollgate-guardrail"]).toBe('check_failed;rule="bad";on_error=open');
    expect(result.events[0]).toMatchObject({ code: "guardrail_check_failed", blocking: false });
  });

  it("times a slow model check out and aborts it, as a check error", async () => {
    let aborted = false;
    const engine = createGuardrailEngine(
      fakeDependencies({
        modelTimeoutMs: 20,
        model: (_check, input) =>
          new Promise((resolve) => {
            input.signal.addEventListener("abort", () => {
              aborted = true;
              resolve({ hits: [] });
            });
          }),
      }),
    );
    const judge = rule({
      id: "judge",
      check: { type: "model", alias: "small" },
      action: "block",
      onError: "open",
    });
    const result = await engine.evaluate("input", [{ text: "x", origin: "user" }], [judge]);
    expect(result.rules[0]!.error?.message).toContain("timed out after 20 ms");
    expect(result.outcome).toBe("passed");
    expect(aborted).toBe(true);
  });

  it("runs asynchronous checks concurrently", async () => {
    let running = 0;
    let most = 0;
    const slow = async () => {
      running++;
      most = Math.max(most, running);
      await new Promise((resolve) => setTimeout(resolve, 10));
      running--;
      return { hits: [] };
    };
    const engine = createGuardrailEngine(fakeDependencies({ model: slow, webhook: slow }));
    const judge = rule({ id: "judge", check: { type: "model", alias: "small" }, action: "block" });
    const hook = rule({ id: "hook", check: { type: "webhook", url: "https://h.example" }, action: "block" });
    await engine.evaluate(
      "input",
      [
        { text: "a", origin: "user" },
        { text: "b", origin: "user" },
      ],
      [judge, hook],
    );
    expect(most).toBe(4);
  });

  it("lets a webhook's block answer block a rule whose own action is only warn", async () => {
    const engine = createGuardrailEngine(
      fakeDependencies({
        webhook: async (_check, input) => ({
          hits: [
            { check: "webhook", entity: "webhook_blocked", start: 0, end: input.text.length, confidence: 1 },
          ],
          action: "block",
        }),
      }),
    );
    const hook = rule({ id: "hook", check: { type: "webhook", url: "https://h.example" }, action: "warn" });
    const result = await engine.evaluate("input", [{ text: "a", origin: "user" }], [hook]);
    expect(result.blockedBy).toEqual({ ruleId: "hook", ruleName: "hook", entity: "webhook_blocked" });
  });

  it("checks an answer against the request's response schema when the rule names none", async () => {
    const jsonSchema = vi.fn(() => []);
    const engine = createGuardrailEngine(fakeDependencies({ jsonSchema }));
    const shape = rule({ id: "shape", stage: "output", check: { type: "json_schema" }, action: "block" });
    const responseSchema = { type: "object" };
    await engine.evaluate("output", [{ text: "{}", origin: "output" }], [shape], { responseSchema });
    expect(jsonSchema).toHaveBeenCalledWith("{}", responseSchema);
  });

  it("compiles a rule's check once, again when the check changes, and forgets the least recently used", async () => {
    const compile = vi.fn(fakeCompile);
    const engine = createGuardrailEngine(fakeDependencies({ compile, cacheSize: 2 }));
    const segments = [{ text: "x", origin: "user" as const }];
    const a = rule({ id: "a", check: { type: "regex", pattern: "a" }, action: "warn" });
    const b = rule({ id: "b", check: { type: "regex", pattern: "b" }, action: "warn" });
    engine.evaluateSync("input", segments, [a, b, a, b]);
    expect(compile).toHaveBeenCalledTimes(2);
    engine.evaluateSync("input", segments, [{ ...a, check: { type: "regex", pattern: "changed" } }]);
    expect(compile).toHaveBeenCalledTimes(3);
    engine.evaluateSync("input", segments, [b]);
    expect(compile).toHaveBeenCalledTimes(3);
    engine.evaluateSync("input", segments, [a]);
    expect(compile).toHaveBeenCalledTimes(4);
  });

  it("refuses an asynchronous rule in the synchronous evaluation", () => {
    const engine = createGuardrailEngine(fakeDependencies());
    const judge = rule({ id: "judge", check: { type: "model", alias: "small" }, action: "block" });
    expect(() => engine.evaluateSync("output", [{ text: "x", origin: "output" }], [judge])).toThrow(
      /asynchronous/,
    );
  });
});
