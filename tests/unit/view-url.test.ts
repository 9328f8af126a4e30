import { describe, expect, it } from "vitest";
import { readPageState } from "@/features/admin-tables/components/use-page-query";
import {
  applyViewToParams,
  urlHasViewState,
  viewStateFromUrl,
} from "@/features/admin-tables/components/view-url";
import { loadPageSchemas } from "@/features/admin-tables/server/load";

const ledger = loadPageSchemas([
  "agentTurns",
  "agentAudit",
  "agentCost",
  "toolCatalog",
  "gatewayRouting",
  "adminChanges",
  "adminTenants",
  "adminMembers",
  "adminInvitations",
  "agentPrompts",
  "evalDatasets",
  "evalRuns",
  "agentRuns",
]).get("agent-turns")!;

describe("applying a saved view to the URL", () => {
  it("replaces the URL's filters, segment and sort, closes the detail and keeps other parameters", () => {
    const params = new URLSearchParams("f.source=api&segment=success&sort=cost:asc&detail=abc&tab=2");
    const next = applyViewToParams(
      params,
      { filters: { feedback: "down" }, segment: "failed", sort: { field: "latencyMs", dir: "desc" } },
      ledger,
    );
    expect(Object.fromEntries(next)).toEqual({
      tab: "2",
      segment: "failed",
      "f.feedback": "down",
      sort: "latencyMs:desc",
    });
  });

  it("leaves the default sort and unknown segments out of the URL", () => {
    const next = applyViewToParams(
      new URLSearchParams("sort=cost:asc"),
      { sort: { field: ledger.defaultSort.field, dir: ledger.defaultSort.direction }, segment: "nope" },
      ledger,
    );
    expect(next.toString()).toBe("");
  });

  it("uses a prefix for a list embedded among others", () => {
    const next = applyViewToParams(
      new URLSearchParams("inv.f.a=1&f.b=2"),
      { filters: { c: "3" } },
      ledger,
      "inv.",
    );
    expect(Object.fromEntries(next)).toEqual({ "f.b": "2", "inv.f.c": "3" });
  });

  it("says whether the URL names a view itself (then it wins over the default view)", () => {
    expect(urlHasViewState(new URLSearchParams(""))).toBe(false);
    expect(urlHasViewState(new URLSearchParams("detail=x&tenant=y"))).toBe(false);
    expect(urlHasViewState(new URLSearchParams("f.feedback="))).toBe(false);
    expect(urlHasViewState(new URLSearchParams("f.feedback=down"))).toBe(true);
    expect(urlHasViewState(new URLSearchParams("segment=failed"))).toBe(true);
    expect(urlHasViewState(new URLSearchParams("sort=cost:asc"))).toBe(true);
  });

  it("saves what the URL shows, and applying it gives the same page state back", () => {
    const url = new URLSearchParams(
      "f.feedback=down&f.startedAt.from=2026-03-01T00:00:00.000Z&segment=failed&sort=cost:asc",
    );
    const state = readPageState(url, ledger);
    const saved = viewStateFromUrl(state, ledger);
    expect(saved).toEqual({
      filters: { feedback: "down", "startedAt.from": "2026-03-01T00:00:00.000Z" },
      segment: "failed",
      sort: { field: "cost", dir: "asc" },
    });
    const again = readPageState(applyViewToParams(new URLSearchParams("detail=1"), saved, ledger), ledger);
    expect(again.apiQuery).toBe(state.apiQuery);
    expect(again.detail).toBeNull();
    expect(viewStateFromUrl(readPageState(new URLSearchParams(""), ledger), ledger)).toEqual({});
  });
});
