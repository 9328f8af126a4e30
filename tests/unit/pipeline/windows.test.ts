import { describe, expect, it } from "vitest";
import { windowsAt } from "@/lib/pipeline/windows";

describe("counter windows", () => {
  it("names the UTC minute, day and month, and the seconds left in each, also across a month's end", () => {
    const last = Date.UTC(2026, 10, 30, 23, 59, 30, 250);
    expect(windowsAt(last)).toEqual({
      minute: Math.floor(last / 60_000),
      secondsToNextMinute: 30,
      day: "2026-11-30",
      secondsToNextDay: 30,
      month: "2026-11",
      secondsToNextMonth: 30,
    });
    // The same minute again (the remembered calendar), then the next one: a new day and a new month.
    expect(windowsAt(last + 20_000).secondsToNextDay).toBe(10);
    const next = windowsAt(last + 40_000);
    expect(next).toMatchObject({ day: "2026-12-01", month: "2026-12", secondsToNextMinute: 50 });
    expect(next.secondsToNextDay).toBe(86_400 - 10);
    expect(next.secondsToNextMonth).toBe(31 * 86_400 - 10);
    // Back in time (a clock set back): worked out again, not taken from the later minute.
    expect(windowsAt(Date.UTC(2025, 0, 1, 0, 0, 0))).toMatchObject({ day: "2025-01-01", month: "2025-01" });
  });
});
