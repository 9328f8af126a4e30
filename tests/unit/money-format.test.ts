import { describe, expect, it } from "vitest";
import { exactMoney, formatMoney } from "@/lib/core/format/money";

describe("formatMoney: one way to read an amount everywhere", () => {
  it.each([
    ["0", "$0.00"],
    ["0.0000000000", "$0.00"],
    ["1", "$1.00"],
    ["15.7460713", "$15.75"],
    ["1.005", "$1.01"], // half up on the decimal itself, where a float would give 1.00
    ["1234567.891", "$1,234,567.89"],
    ["999.995", "$1,000.00"],
    ["0.999995", "$1.00"], // four significant digits round it up to a dollar, which then reads in cents
    ["0.9999", "$0.9999"],
    ["0.5", "$0.50"],
    ["0.1", "$0.10"],
    ["0.01234", "$0.01234"],
    ["0.0123456", "$0.01235"],
    ["0.00001234567", "$0.00001235"],
    ["0.0000001234", "$0.0000001234"],
    ["0.0012340000", "$0.001234"],
    ["0.0000000001", "$0.0000000001"],
    ["-1.5", "-$1.50"],
    ["-0.01234", "-$0.01234"],
    ["-1234.567", "-$1,234.57"],
  ])("%s → %s", (value, expected) => {
    expect(formatMoney(value)).toBe(expected);
  });

  it("says what the caller chose when there is no amount", () => {
    expect(formatMoney(null)).toBe("—");
    expect(formatMoney(undefined)).toBe("—");
    expect(formatMoney("")).toBe("—");
    expect(formatMoney("not money")).toBe("—");
    expect(formatMoney(null, { empty: "unpriced" })).toBe("unpriced");
  });

  it("reads numbers as their decimal text, and groups by the locale", () => {
    expect(formatMoney(0.1 + 0.2)).toBe("$0.30");
    expect(formatMoney(12)).toBe("$12.00");
    expect(formatMoney(Number.NaN)).toBe("—");
    expect(formatMoney("1234567.891", { locale: "zh" })).toBe("$1,234,567.89");
  });
});

describe("exactMoney: every decimal, for hover and export", () => {
  it.each([
    ["15.7460713000", "$15.7460713"],
    ["0.0000001234", "$0.0000001234"],
    ["0", "$0"],
    ["-2.50", "-$2.5"],
    ["1234567.891", "$1234567.891"],
  ])("%s → %s", (value, expected) => {
    expect(exactMoney(value)).toBe(expected);
  });

  it("has nothing to say without an amount", () => {
    expect(exactMoney(null)).toBeUndefined();
    expect(exactMoney("x")).toBeUndefined();
  });
});

describe("counts read the same everywhere", () => {
  it("groups whole numbers in thousands, in English and Chinese alike", async () => {
    const { formatCount } = await import("@/lib/core/format/number");
    expect(formatCount(1234567)).toBe("1,234,567");
    expect(formatCount("1234567", { locale: "zh" })).toBe("1,234,567");
    expect(formatCount(null)).toBe("—");
    expect(formatCount("n/a", { empty: "?" })).toBe("?");
  });

  it("puts money in server messages through the same rule as the pages", async () => {
    const { usd } = await import("@/lib/pipeline/money");
    expect(usd("15.7460713")).toBe("$15.75");
    expect(usd("0.0042137")).toBe("$0.004214");
    expect(usd(2_500_000_000)).toBe("$2.50");
  });
});
