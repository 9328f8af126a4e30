import { describe, expect, it } from "vitest";
import {
  bucketStart,
  chooseGranularity,
  DAY_MS,
  fillBuckets,
  seriesRange,
} from "@/features/admin-tables/server/time-buckets";

const at = (iso: string) => Date.parse(iso);

describe("a chart's granularity follows its range", () => {
  it("draws hours up to two days where the source has times, days up to 90 days, weeks beyond", () => {
    expect(chooseGranularity(DAY_MS, "hour")).toBe("hour");
    expect(chooseGranularity(2 * DAY_MS, "hour")).toBe("hour");
    expect(chooseGranularity(2 * DAY_MS + 1, "hour")).toBe("day");
    expect(chooseGranularity(90 * DAY_MS, "hour")).toBe("day");
    expect(chooseGranularity(90 * DAY_MS + 1, "hour")).toBe("week");
  });

  it("never draws hours from a source that only has days", () => {
    expect(chooseGranularity(DAY_MS, "day")).toBe("day");
    expect(chooseGranularity(400 * DAY_MS, "day")).toBe("week");
  });

  it("starts weeks on Monday in UTC, like Postgres's date_trunc('week')", () => {
    // 2026-03-15 is a Sunday; its week started on Monday 2026-03-09.
    expect(new Date(bucketStart(at("2026-03-15T23:59:00Z"), "week")).toISOString()).toBe(
      "2026-03-09T00:00:00.000Z",
    );
    expect(new Date(bucketStart(at("2026-03-16T00:00:00Z"), "week")).toISOString()).toBe(
      "2026-03-16T00:00:00.000Z",
    );
    expect(new Date(bucketStart(at("2026-03-15T14:35:10Z"), "hour")).toISOString()).toBe(
      "2026-03-15T14:00:00.000Z",
    );
  });
});

describe("empty buckets are drawn as zero", () => {
  it("fills the days of the range the data has no row for, in time order", () => {
    const points = [
      { label: "2026-03-03", value: "1.5" },
      { label: "2026-03-01", value: "0.25" },
    ];
    expect(
      fillBuckets(points, { fromMs: at("2026-03-01"), toMs: at("2026-03-04T12:00:00Z") }, "day"),
    ).toEqual([
      { label: "2026-03-01", value: "0.25" },
      { label: "2026-03-02", value: 0 },
      { label: "2026-03-03", value: "1.5" },
      { label: "2026-03-04", value: 0 },
    ]);
  });

  it("labels hours as UTC times", () => {
    const filled = fillBuckets(
      [{ label: "2026-03-15T01:00:00Z", value: 3 }],
      { fromMs: at("2026-03-15T00:10:00Z"), toMs: at("2026-03-15T02:00:00Z") },
      "hour",
    );
    expect(filled.map((p) => p.label)).toEqual([
      "2026-03-15T00:00:00Z",
      "2026-03-15T01:00:00Z",
      "2026-03-15T02:00:00Z",
    ]);
    expect(filled.map((p) => p.value)).toEqual([0, 3, 0]);
  });
});

describe("the range a chart over time covers", () => {
  const data = { minMs: at("2026-01-01"), maxMs: at("2026-03-31") };
  const now = at("2026-04-02T10:00:00Z");

  it("is the filter's range, a day as its end covering that whole day", () => {
    expect(seriesRange({ from: "2026-03-01", to: "2026-03-02" }, data, now)).toEqual({
      fromMs: at("2026-03-01"),
      toMs: at("2026-03-03") - 1,
    });
  });

  it("runs to now when only a start is given, and is the data's own span without a filter", () => {
    expect(seriesRange({ from: "2026-04-01T10:00:00Z" }, data, now)).toEqual({
      fromMs: at("2026-04-01T10:00:00Z"),
      toMs: now,
    });
    expect(seriesRange({}, data, now)).toEqual({ fromMs: data.minMs, toMs: data.maxMs });
    expect(seriesRange({}, { minMs: null, maxMs: null }, now)).toBeNull();
  });
});
