import { createHash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  auditEventHash,
  auditEventText,
  canonicalJson,
  chainMonth,
  genesisHash,
  type HashedFields,
} from "@/lib/governance/audit-chain";

const event: HashedFields = {
  id: "019a0000-0000-7000-8000-000000000001",
  tenantId: "019a0000-0000-7000-8000-0000000000aa",
  userId: null,
  turnId: "019a0000-0000-7000-8000-0000000000bb",
  conversationId: null,
  seq: 2,
  type: "tool_call",
  payload: { name: "lookup", args: { q: "x" }, round: 1 },
  createdAt: new Date("2026-12-03T08:39:21.007Z"),
  chainSeq: 7,
  prevHash: "ab".repeat(32),
};

describe("the audit chain's canonical serialization", () => {
  it("sorts object keys at every depth and keeps array order", () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: "x" } })).toBe(
      '{"a":{"c":"x","d":[3,{"y":2,"z":1}]},"b":1}',
    );
  });

  it("writes what JSON.stringify writes otherwise: undefined dropped (null in arrays), toJSON, non-finite as null", () => {
    expect(
      canonicalJson({
        u: undefined,
        at: new Date("2026-01-02T03:04:05.006Z"),
        n: Number.NaN,
        a: [undefined, 1],
      }),
    ).toBe('{"a":[null,1],"at":"2026-01-02T03:04:05.006Z","n":null}');
    expect(canonicalJson("line\nbreak \u2028 \ud83d\ude00")).toBe(
      JSON.stringify("line\nbreak \u2028 \ud83d\ude00"),
    );
  });

  it("is the same for a value and for that value after a JSON round trip in any key order (as jsonb gives it back)", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const reordered = JSON.parse(JSON.stringify(value), (_k, v) =>
          v && typeof v === "object" && !Array.isArray(v)
            ? Object.fromEntries(Object.entries(v).reverse())
            : v,
        );
        expect(canonicalJson(reordered)).toBe(canonicalJson(value));
        expect(JSON.parse(canonicalJson(value))).toEqual(JSON.parse(JSON.stringify(value)));
      }),
    );
  });

  it("hashes a versioned array of the event's fields in a fixed order, the payload last", () => {
    expect(auditEventText(event)).toBe(
      `["tollgate-audit-v1","${event.id}","${event.tenantId}","${event.turnId}",null,null,2,"tool_call",` +
        `"2026-12-03T08:39:21.007Z",7,"${"ab".repeat(32)}",{"args":{"q":"x"},"name":"lookup","round":1}]`,
    );
    expect(auditEventHash(event)).toBe(createHash("sha256").update(auditEventText(event)).digest("hex"));
  });

  it("changes the hash when any hashed field changes", () => {
    const base = auditEventHash(event);
    const changes: Partial<HashedFields>[] = [
      { payload: { ...(event.payload as object), round: 2 } },
      { createdAt: new Date("2026-12-03T08:39:21.008Z") },
      { seq: 3 },
      { type: "tool_result" },
      { chainSeq: 8 },
      { prevHash: "cd".repeat(32) },
      { turnId: event.id },
      { tenantId: event.id },
      { userId: event.id },
    ];
    for (const change of changes) expect(auditEventHash({ ...event, ...change })).not.toBe(base);
  });

  it("starts each tenant-month chain from the sha256 of its name, by the UTC month", () => {
    expect(genesisHash("t1", "2026-12")).toBe(
      createHash("sha256").update("tollgate-audit:t1:2026-12").digest("hex"),
    );
    expect(chainMonth(new Date("2026-11-30T23:59:59.999Z"))).toBe("2026-11");
    expect(chainMonth(new Date("2026-12-01T00:00:00.000Z"))).toBe("2026-12");
  });
});
