// The archive's months: UTC calendar months, and the UUIDv7 ids minted in them (an id's first 48 bits are its time).
import { v4 as uuidv4, v7 as uuidv7 } from "uuid";
import { describe, expect, it } from "vitest";
import { ledgerExportQuery } from "@/features/ledger-export/contracts";
import {
  isMonth,
  lowestUuidAt,
  monthEnd,
  monthOfUuidV7,
  monthStart,
  nextMonth,
} from "@/lib/governance/archive/month";
import { archiveAfterDaysFromEnv } from "@/lib/governance/archive/target";

describe("archive months", () => {
  it("reads a v7 id's month, at the month's first and last millisecond, and refuses other versions", () => {
    expect(monthOfUuidV7(uuidv7({ msecs: Date.parse("2026-01-01T00:00:00.000Z") }))).toBe("2026-01");
    expect(monthOfUuidV7(uuidv7({ msecs: Date.parse("2026-01-31T23:59:59.999Z") }))).toBe("2026-01");
    expect(monthOfUuidV7(uuidv4())).toBeNull();
  });

  it("bounds a month's ids: every id minted in it sorts between its bounds (as PostgreSQL compares uuids)", () => {
    const lo = lowestUuidAt(monthStart("2026-02"));
    const hi = lowestUuidAt(monthEnd("2026-02"));
    for (const at of ["2026-02-01T00:00:00.000Z", "2026-02-28T23:59:59.999Z"]) {
      const id = uuidv7({ msecs: Date.parse(at) });
      expect(id >= lo && id < hi).toBe(true);
    }
    expect(uuidv7({ msecs: Date.parse("2026-03-01T00:00:00.000Z") }) >= hi).toBe(true);
    expect(nextMonth("2026-12")).toBe("2027-01");
    expect([isMonth("2026-12"), isMonth("2026-13"), isMonth("2026-1")]).toEqual([true, false, false]);
  });

  it("takes ARCHIVE_AFTER_DAYS as a whole number of days, unset as off", () => {
    expect(archiveAfterDaysFromEnv({})).toBeNull();
    expect(archiveAfterDaysFromEnv({ ARCHIVE_AFTER_DAYS: "60" })).toBe(60);
    expect(() => archiveAfterDaysFromEnv({ ARCHIVE_AFTER_DAYS: "1.5" })).toThrow("ARCHIVE_AFTER_DAYS");
  });

  it("checks an export's range: real days, in order, at most 366 of them", () => {
    expect(ledgerExportQuery.safeParse({ from: "2024-01-01", to: "2024-12-31" }).success).toBe(true);
    expect(ledgerExportQuery.safeParse({ from: "2024-01-01", to: "2025-01-01" }).success).toBe(false);
    expect(ledgerExportQuery.safeParse({ from: "2026-02-29", to: "2026-03-01" }).success).toBe(false);
  });
});
