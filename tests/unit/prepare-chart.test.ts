import { describe, expect, it } from "vitest";
import {
  fitLabel,
  formatBucket,
  labelWidthFor,
  prepareChart,
  textWidth,
} from "@/features/admin-tables/components/prepare-chart";
import type { ChartDef } from "@/features/admin-tables/contracts";
import { translator } from "@/lib/i18n/messages";

const bar: ChartDef = {
  key: "costByModel",
  title: { en: "Cost by model", zh: "各模型成本" },
  type: "bar",
  dimension: "servedModel",
  measure: "cost",
  aggregation: "sum",
  format: "money",
};
const line: ChartDef = { ...bar, key: "costByDay", type: "line", dimension: "day" };

describe("a bar chart, prepared", () => {
  it("sorts bars by amount, largest first, whatever order and type the values came in", () => {
    const chart = prepareChart(
      bar,
      {
        points: [
          { label: "gpt-4o-mini", value: "1.2" },
          { label: "claude-sonnet-4-5", value: "9.4412" },
          { label: "offline", value: 0 },
          { label: "gpt-4.1", value: "15.7460713" },
        ],
      },
      "en",
    );
    expect(chart.points.map((p) => p.key)).toEqual([
      "gpt-4.1",
      "claude-sonnet-4-5",
      "gpt-4o-mini",
      "offline",
    ]);
  });

  it("shows money as every page does, and keeps the exact amount for hover", () => {
    const [point] = prepareChart(bar, { points: [{ label: "gpt-4.1", value: "15.7460713" }] }, "en").points;
    expect(point).toMatchObject({ display: "$15.75", exact: "$15.7460713", value: 15.7460713 });
  });

  it("gives the labels the room of the longest one, within bounds, and grows with the number of bars", () => {
    const few = prepareChart(bar, { points: [{ label: "a", value: 1 }] }, "en");
    expect(few.labelWidth).toBe(48);
    const many = prepareChart(
      bar,
      { points: Array.from({ length: 10 }, (_, i) => ({ label: `model-${i}`, value: i })) },
      "en",
    );
    expect(many.height).toBeGreaterThan(few.height);
    expect(labelWidthFor(["x".repeat(200)])).toBe(200);
  });

  it("cuts a label longer than its room with an ellipsis, and leaves a short one whole", () => {
    expect(fitLabel("gpt-4o-mini", 200)).toBe("gpt-4o-mini");
    const cut = fitLabel("a-very-long-model-name-that-goes-on-and-on", 80);
    expect(cut.endsWith("…")).toBe(true);
    expect(textWidth(cut)).toBeLessThanOrEqual(80);
    expect(textWidth("模型")).toBeGreaterThan(textWidth("ab"));
  });
});

describe("a chart over time, prepared", () => {
  it("keeps time order and names buckets for their granularity, in UTC", () => {
    const t = translator("en");
    const days = prepareChart(
      line,
      {
        granularity: "day",
        points: [
          { label: "2026-03-02", value: "2" },
          { label: "2026-03-01", value: "5" },
        ],
      },
      "en",
      t,
    );
    expect(days.points.map((p) => p.label)).toEqual(["Mar 1", "Mar 2"]);
    expect(formatBucket("2026-03-15T14:00:00Z", "hour", "en")).toBe("Mar 15, 14:00");
    expect(formatBucket("2026-03-09", "week", "en", t)).toBe("Week of Mar 9");
    expect(formatBucket("2026-03-09", "day", "zh")).toBe("3月9日");
  });
});
