// The ledger partitions' periods (UTC, whatever the process's time zone) and their settings, refused by name.
import { describe, expect, it } from "vitest";
import { DatabaseUnavailableError } from "@/db/client";
import { partitionInterval, partitionsAhead, periodOf } from "@/db/partitions";

describe("ledger partition periods", () => {
  it("are UTC months and days, named after them, across a year's end and a leap day", () => {
    expect(periodOf(new Date("2026-12-31T23:59:59.999Z"), "month")).toEqual({
      from: new Date("2026-12-01T00:00:00Z"),
      to: new Date("2027-01-01T00:00:00Z"),
      suffix: "p2026_12",
    });
    expect(periodOf(new Date("2028-02-29T12:00:00Z"), "day")).toEqual({
      from: new Date("2028-02-29T00:00:00Z"),
      to: new Date("2028-03-01T00:00:00Z"),
      suffix: "p2028_02_29",
    });
    // A period's end is the next one's start.
    const p = periodOf(new Date("2027-01-15T00:00:00Z"), "month");
    expect(periodOf(p.to, "month").from).toEqual(p.to);
  });

  it("read LEDGER_PARTITION_INTERVAL and LEDGER_PARTITIONS_AHEAD, and stop the start on anything else", () => {
    expect(partitionInterval({})).toBe("month");
    expect(partitionInterval({ LEDGER_PARTITION_INTERVAL: " Day " })).toBe("day");
    expect(() => partitionInterval({ LEDGER_PARTITION_INTERVAL: "week" })).toThrow(DatabaseUnavailableError);
    expect(() => partitionInterval({ LEDGER_PARTITION_INTERVAL: "week" })).toThrow(/"month" or "day"/);
    expect(partitionsAhead({})).toBe(2);
    expect(partitionsAhead({ LEDGER_PARTITIONS_AHEAD: "7" })).toBe(7);
    for (const bad of ["0", "1.5", "x", "367"])
      expect(() => partitionsAhead({ LEDGER_PARTITIONS_AHEAD: bad })).toThrow(/LEDGER_PARTITIONS_AHEAD/);
  });
});
