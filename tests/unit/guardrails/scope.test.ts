import { describe, expect, it } from "vitest";
import { rulesFor } from "@/lib/guardrails/scope";
import type { GuardrailPolicy } from "@/lib/guardrails/types";
import { rule } from "./fakes";

const policy: GuardrailPolicy = {
  rules: [
    rule({ id: "all-input", check: { type: "secrets" }, action: "block" }),
    rule({ id: "output", stage: "output", check: { type: "secrets" }, action: "block" }),
    rule({ id: "disabled", check: { type: "secrets" }, action: "block", enabled: false }),
    rule({ id: "gpt-only", check: { type: "pii" }, action: "redact", scope: { aliases: ["gpt"] } }),
    rule({
      id: "mcp-key",
      check: { type: "pii" },
      action: "warn",
      scope: { sources: ["mcp"], keys: ["k1"] },
    }),
    rule({ id: "alice", check: { type: "injection" }, action: "log", scope: { users: ["alice"] } }),
  ],
};

describe("rulesFor", () => {
  it("keeps the enabled rules of the stage whose scope covers the call, in the policy's order", () => {
    const ids = rulesFor(policy, "input", { alias: "gpt", keyId: "k1", userId: "alice", source: "mcp" }).map(
      (r) => r.id,
    );
    expect(ids).toEqual(["all-input", "gpt-only", "mcp-key", "alice"]);
  });

  it("needs every list in a scope to name the call", () => {
    const ids = rulesFor(policy, "input", { alias: "claude", keyId: "k1", source: "v1" }).map((r) => r.id);
    expect(ids).toEqual(["all-input"]);
  });

  it("does not apply a scoped rule to a call that does not say the scoped value", () => {
    expect(rulesFor(policy, "input", { source: "mcp" }).map((r) => r.id)).toEqual(["all-input"]);
  });

  it("picks the output stage apart from the input", () => {
    expect(rulesFor(policy, "output", { source: "drawer" }).map((r) => r.id)).toEqual(["output"]);
  });
});
