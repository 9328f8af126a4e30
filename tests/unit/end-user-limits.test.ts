import { describe, expect, it } from "vitest";
import { endUserSubject, limitsOf, type Policy, type ScopedLimit, subjectOf } from "@/lib/pipeline/policy";

const KEY = "7a0c3f1e-8f1b-4c55-9d6c-2a1f0e5b9c11";
const TENANT = "0b7e2d94-3c1a-4e0f-a8b2-5f6d7c8e9a10";
const values = {
  requestsPerMinute: 5,
  tokensPerMinute: null,
  dailySoftUsd: null,
  dailyHardUsd: "2",
  monthlySoftUsd: null,
  monthlyHardUsd: null,
};
const keyLimit: ScopedLimit = { scope: "key", subjectId: KEY, ...values };
const policy = (templates?: Policy["endUserTemplates"]): Policy => ({
  cacheAliases: [],
  cacheTtlSeconds: 0,
  limits: [keyLimit],
  ...(templates ? { endUserTemplates: templates } : {}),
  maxOutputTokensDefault: 4096,
  assumedPrices: {},
});
const caller = (endUser?: string) => ({
  tenantId: TENANT,
  apiKeyId: KEY,
  userId: null,
  ...(endUser === undefined ? {} : { endUser }),
});
const templates: Policy["endUserTemplates"] = [
  { scope: "end_user_template", subjectId: KEY, ...values, template: "key 'bot'" },
  { scope: "end_user_template", subjectId: TENANT, ...values, template: "the tenant's" },
];

describe("an end user's limit lines (limitsOf)", () => {
  it("are the policy's own limits, the same array, for a key without a template or a call without an end user", () => {
    const plain = policy();
    expect(limitsOf(plain, caller("alice"))).toBe(plain.limits);
    const templated = policy(templates);
    expect(limitsOf(templated, caller())).toBe(templated.limits);
  });

  it("add one line per template, on a counter subject of the template's subject and the end user", () => {
    const who = caller("alice");
    const templated = policy(templates);
    const lines = limitsOf(templated, who);
    // Asked again for the same call (each step asks twice): the same lines, not worked out again.
    expect(limitsOf(templated, who)).toBe(lines);
    expect(lines.map((l) => [l.scope, l.subjectId])).toEqual([
      ["key", KEY],
      ["end_user_template", `${KEY}:alice`],
      ["end_user_template", `${TENANT}:alice`],
    ]);
    expect(lines.map(subjectOf)).toEqual([
      "this API key",
      `the end user "alice" (key 'bot' template)`,
      `the end user "alice" (the tenant's template)`,
    ]);
  });
});

describe("an end user as a counter key names it (endUserSubject)", () => {
  it("keeps a short plain name, and hashes a long or unusual one so no two names share a counter", () => {
    expect(endUserSubject("alice@example.com")).toBe("alice@example.com");
    const long = "u".repeat(65);
    expect(endUserSubject(long)).toMatch(/^#[\w-]{43}$/);
    expect(endUserSubject(long)).not.toBe(endUserSubject(`${long}x`));
    // A name with a separator in it cannot pass for another counter's key.
    expect(endUserSubject("a:b")).toMatch(/^#/);
    expect(endUserSubject("a:b")).not.toBe(endUserSubject("a;b"));
  });
});
