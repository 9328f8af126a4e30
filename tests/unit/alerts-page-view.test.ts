import { describe, expect, it } from "vitest";
import { alertRuleInput } from "@/features/alerts/contracts";
import { emptyRuleDraft, kindsFor, paramsOf, paramsSummary, ruleDraftOf } from "@/features/alerts/page-view";
import { translator } from "@/lib/i18n/messages";

const t = translator("en");

describe("the Alerts page's rule drafts", () => {
  it("sends a new budget rule's fields as params the API accepts, defaults and all", () => {
    const draft = { ...emptyRuleDraft(), name: "Budget", thresholds: "80, 50,100", period: "daily" };
    const parsed = alertRuleInput.parse({ name: draft.name, kind: draft.kind, params: paramsOf(draft) });
    expect(parsed.params).toEqual({
      thresholds: [50, 80, 100],
      scope: "any",
      period: "daily",
      limit: "hard",
    });
  });

  it("leaves out empty optional fields and keeps text that is not a number for the server to name", () => {
    const draft = { ...emptyRuleDraft("failure_rate"), alias: " ", percent: "lots" };
    expect(paramsOf(draft)).toEqual({ percent: "lots", minCalls: 20 });
    const result = alertRuleInput.safeParse({ name: "x", kind: "failure_rate", params: paramsOf(draft) });
    expect(result.success ? [] : result.error.issues.map((i) => i.path.join("."))).toEqual([
      "params.percent",
    ]);
  });

  it("edits a saved rule's params round trip", () => {
    const rule = {
      id: "r",
      name: "Keys",
      kind: "key_expiring" as const,
      params: { days: 14 },
      channelIds: ["c"],
      enabled: false,
      lastFiredAt: null,
      updatedAt: "",
    };
    const draft = ruleDraftOf(rule);
    expect(draft).toMatchObject({ name: "Keys", days: "14", enabled: false, channelIds: ["c"] });
    expect(paramsOf(draft)).toEqual({ days: 14 });
  });

  it("offers the platform its four kinds only", () => {
    expect(kindsFor(true)).toEqual(["breaker_open", "failure_rate", "spend_anomaly", "unpriced_calls"]);
    expect(kindsFor(false)).toHaveLength(8);
  });

  it("summarises a rule's params in a few words", () => {
    expect(
      paramsSummary(t, {
        kind: "budget_threshold",
        params: { thresholds: [50, 80], scope: "tenant", period: "monthly" },
      }),
    ).toBe("50%, 80% of tenant monthly budgets");
    expect(paramsSummary(t, { kind: "failure_rate", params: { percent: 20, minCalls: 20 } })).toBe(
      "20% failed calls to any in 5 minutes (at least 20 calls)",
    );
  });
});
