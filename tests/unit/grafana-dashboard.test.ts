import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { TollgateMetrics } from "@/lib/observability/metrics";

const dashboard = JSON.parse(
  readFileSync(new URL("../../ops/grafana/tollgate.json", import.meta.url), "utf8"),
);

describe("the Grafana dashboard", () => {
  it("queries only metrics Tollgate exposes (a renamed metric breaks this test, not the dashboard)", async () => {
    const exposed = new Set(
      (await new TollgateMetrics().registry.getMetricsAsJSON()).map((m) => m.name as string),
    );
    const queried = new Set<string>();
    for (const panel of dashboard.panels)
      for (const target of panel.targets)
        for (const name of (target.expr as string).match(/tollgate_[a-z0-9_]+/g) ?? [])
          queried.add(name.replace(/_(bucket|count|sum)$/, ""));
    expect(queried.size).toBeGreaterThan(15);
    expect([...queried].filter((name) => !exposed.has(name))).toEqual([]);
  });
});
