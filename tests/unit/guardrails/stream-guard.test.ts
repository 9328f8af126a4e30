import { describe, expect, it, vi } from "vitest";
import { createGuardrailEngine } from "@/lib/guardrails/engine";
import { Pseudonyms } from "@/lib/guardrails/pseudonymise";
import { createStreamGuard } from "@/lib/guardrails/stream-guard";
import type { GuardrailRule } from "@/lib/guardrails/types";
import { fakeCompile, fakeDependencies, rule } from "./fakes";

const redactPii = rule({ id: "pii", stage: "output", check: { type: "pii" }, action: "redact" });
const blockKeys = rule({ id: "keys", stage: "output", check: { type: "secrets" }, action: "block" });
const CARD = "4111 1111 1111 1111";

function guardOf(rules: GuardrailRule[], holdBackChars?: number, pseudonyms?: Pseudonyms) {
  const engine = createGuardrailEngine(fakeDependencies());
  return createStreamGuard({ engine, rules, holdBackChars, pseudonyms });
}

function run(guard: ReturnType<typeof guardOf>, deltas: string[]): string[] {
  const emitted = deltas.map((delta) => guard.push(delta));
  emitted.push(guard.end());
  return emitted;
}

describe("the stream guard", () => {
  it("never lets a card number split over five deltas reach the output", () => {
    const filler = "x".repeat(60);
    const guard = guardOf([redactPii], 16);
    const deltas = [`${filler} 4111 `, "1111", " 1111 ", "11", `11 ${filler}`];
    const output = run(guard, deltas).join("");
    expect(output).toBe(`${filler} [PAYMENT_CARD] ${filler}`);
    for (const digits of ["4111", "1111"]) expect(output).not.toContain(digits);
    expect(guard.report()).toMatchObject({
      outcome: "redacted",
      rules: [{ ruleId: "pii", action: "redact" }],
    });
    expect(guard.report().rules[0]!.hits).toEqual([
      expect.objectContaining({ entity: "payment_card", start: 61, end: 61 + CARD.length }),
    ]);
  });

  it("emits as it goes while holding back only the configured tail", () => {
    const guard = guardOf([redactPii], 8);
    expect(guard.push("a".repeat(15))).toBe("");
    expect(guard.push("a")).toBe("a".repeat(8));
    expect(guard.end()).toBe("a".repeat(8));
  });

  it("redacts a span found mid-stream and keeps streaming after it", () => {
    const guard = guardOf([redactPii], 20);
    const text = `${"lorem ipsum ".repeat(10)}write to bob@example.com please ${"dolor sit ".repeat(10)}`;
    const emitted = run(guard, text.match(/.{1,7}/gs)!);
    expect(emitted.filter((part) => part !== "").length).toBeGreaterThan(3);
    expect(emitted.join("")).toBe(text.replace("bob@example.com", "[EMAIL]"));
  });

  it("replaces a reversible span with the call's numbered placeholder", () => {
    const pseudonyms = new Pseudonyms();
    const guard = guardOf([{ ...redactPii, reversible: true }], 16, pseudonyms);
    const output = run(guard, ["from a@x.io ", "and again a@", "x.io"]).join("");
    expect(output).toBe("from [EMAIL_1] and again [EMAIL_1]");
    expect(pseudonyms.restore(output)).toBe("from a@x.io and again a@x.io");
  });

  it("numbers only whole originals when a reversible span arrives across several scans", () => {
    // Every alignment of the email against the scans, so some scan sees it half arrived.
    for (let padding = 0; padding < 32; padding++) {
      const pseudonyms = new Pseudonyms();
      const guard = guardOf([{ ...redactPii, reversible: true }], 16, pseudonyms);
      const text = `${"w".repeat(padding)} mail bob@example.com soon ${"words ".repeat(10)}`;
      const output = run(guard, [...text]).join("");
      expect(output).toBe(text.replace("bob@example.com", "[EMAIL_1]"));
      expect(pseudonyms.size).toBe(1);
    }
  });

  it("cuts the stream just before a blocked span and emits nothing after it", () => {
    const guard = guardOf([blockKeys], 32);
    const before = "the key is ".repeat(8);
    const emitted = run(guard, [before, "AKIAABCDEF", "GHIJKLMNOP and more", " text after"]);
    expect(emitted.join("")).toBe(before);
    expect(guard.blockedBy).toEqual({ ruleId: "keys", ruleName: "keys", entity: "aws_access_key" });
    expect(guard.push("more")).toBe("");
    expect(guard.report()).toMatchObject({
      outcome: "blocked",
      events: [{ code: "guardrail_blocked", blocking: true }],
    });
  });

  it("stops before anything pending when a check fails closed, and goes on when it fails open", () => {
    const broken = (onError: "open" | "closed") =>
      rule({ id: "bad", stage: "output", check: { type: "regex", pattern: "(" }, action: "warn", onError });
    const closed = guardOf([broken("closed")], 4);
    expect(run(closed, ["abcdefgh", "ijkl"]).join("")).toBe("");
    expect(closed.blockedBy).toMatchObject({ entity: "check_failed" });
    const open = guardOf([broken("open")], 4);
    expect(run(open, ["abcdefgh", "ijkl"]).join("")).toBe("abcdefghijkl");
    expect(open.report().headers["x-tollgate-guardrail"]).toBe('check_failed;rule="bad";on_error=open');
  });

  it("reports a span once although overlapping windows see it twice", () => {
    const warn = rule({ id: "warn", stage: "output", check: { type: "pii" }, action: "warn" });
    const guard = guardOf([warn], 20);
    run(guard, [...`${"y".repeat(30)} a@x.io ${"z".repeat(60)}`]);
    expect(guard.report().rules[0]!.hits).toHaveLength(1);
    expect(guard.report().outcome).toBe("warned");
  });

  it("scans in time linear in the stream's length: ten times the text, about ten times the characters scanned", () => {
    const scanned = (size: number) => {
      let characters = 0;
      const compile = vi.fn((check: Parameters<typeof fakeCompile>[0]) => {
        const inner = fakeCompile(check);
        return (text: string, origin: Parameters<typeof inner>[1]) => {
          characters += text.length;
          return inner(text, origin);
        };
      });
      const engine = createGuardrailEngine(fakeDependencies({ compile }));
      const guard = createStreamGuard({ engine, rules: [redactPii] });
      const sentence = "the quick brown fox jumps over the lazy dog. ";
      let output = 0;
      for (let index = 0; index < size; index++)
        output += guard.push(sentence[index % sentence.length]!).length;
      output += guard.end().length;
      expect(output).toBe(size);
      return characters;
    };
    const small = scanned(100_000);
    const large = scanned(1_000_000);
    expect(large / small).toBeGreaterThan(9);
    expect(large / small).toBeLessThan(11);
    expect(large).toBeLessThan(4 * 1_000_000);
  });
});
