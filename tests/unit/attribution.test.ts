import { describe, expect, it } from "vitest";
import { attributionColumns, boundAttribution } from "@/lib/governance/attribution";
import type { TurnStart } from "@/lib/turns/observer";

const base = { endUser: null, tags: [], metadata: null };

describe("an API call's attribution, bounded for the ledger", () => {
  it("stores an empty or missing end user as none", () => {
    expect(boundAttribution({ ...base, endUser: "" })).toEqual({
      endUser: null,
      tags: [],
      requestMetadata: null,
    });
    expect(boundAttribution({ ...base, metadata: {} }).requestMetadata).toBeNull();
  });

  it("never cuts a surrogate pair in half at the bound", () => {
    const endUser = `${"a".repeat(255)}😀`;
    const bounded = boundAttribution({ ...base, endUser }).endUser!;
    expect(bounded).toBe("a".repeat(255));
    expect(bounded.length).toBeLessThanOrEqual(256);
  });

  it("masks a secret that begins inside the bound even when the value is far longer than it", () => {
    const endUser = `${"x ".repeat(100)}sk-ant-${"a1".repeat(20)} ${"y".repeat(5_000)}`;
    expect(boundAttribution({ ...base, endUser }).endUser).toContain("[masked:anthropic_key]");
  });

  it("keeps a metadata key named __proto__ as a key", () => {
    const metadata = JSON.parse('{"__proto__": "x", "plan": "pro"}') as Record<string, string>;
    const bounded = boundAttribution({ ...base, metadata }).requestMetadata!;
    expect(Object.keys(bounded)).toEqual(["__proto__", "plan"]);
    expect(Object.getPrototypeOf(bounded)).toBe(Object.prototype);
  });

  it("gives chat turns no attribution", () => {
    const turn = {
      turnId: "t",
      tenantId: "x",
      userId: "u",
      requestedModel: "m",
      message: "hi",
      toolsOffered: [],
      startedAt: new Date(),
      source: "drawer",
      conversationId: "c",
    } satisfies TurnStart;
    expect(attributionColumns(turn)).toEqual({ endUser: null, tags: [], requestMetadata: null });
  });
});
