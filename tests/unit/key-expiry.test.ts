// A key's expiry as the keys page shows it, and the expiry and rotation inputs as the routes read them.
import { describe, expect, it } from "vitest";
import { createKeyInput, expiryOf, rotateKeyInput, updateKeyInput } from "@/features/keys/contracts";
import { daysFromNow, expiryState, parseCount } from "@/features/keys/expiry";

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 11, 6, 3, 0, 0);

describe("a key's expiry on the keys page", () => {
  it("is never, expired from its very instant, or the whole days left rounded up", () => {
    expect(expiryState(null, NOW)).toEqual({ state: "never" });
    expect(expiryState(new Date(NOW), NOW)).toEqual({ state: "expired" });
    expect(expiryState(new Date(NOW - 1).toISOString(), NOW)).toEqual({ state: "expired" });
    expect(expiryState(new Date(NOW + 1).toISOString(), NOW)).toEqual({ state: "expires", days: 1 });
    expect(expiryState(new Date(NOW + DAY).toISOString(), NOW)).toEqual({ state: "expires", days: 1 });
    expect(expiryState(new Date(NOW + DAY + 1).toISOString(), NOW)).toEqual({ state: "expires", days: 2 });
  });

  it("reads a typed count: empty is none, a non-number is NaN, a fraction is left for the server to name", () => {
    expect(parseCount("  ")).toBeNull();
    expect(parseCount(" 30 ")).toBe(30);
    expect(parseCount("1.5")).toBe(1.5);
    expect(parseCount("soon")).toBeNaN();
    expect(daysFromNow(2, NOW)).toBe(new Date(NOW + 2 * DAY).toISOString());
  });
});

describe("the expiry and rotation inputs", () => {
  const issues = (result: { success: boolean; error?: { issues: { path: PropertyKey[] }[] } }) =>
    result.success ? [] : result.error!.issues.map((i) => i.path.join("."));

  it("takes an expiry in days or at a future instant within about 5 years, naming the field otherwise", () => {
    const soon = new Date(Date.now() + DAY).toISOString();
    expect(issues(createKeyInput.safeParse({ name: "a", expiresInDays: 30 }))).toEqual([]);
    expect(issues(createKeyInput.safeParse({ name: "a", expiresAt: soon }))).toEqual([]);
    expect(issues(createKeyInput.safeParse({ name: "a", expiresInDays: null }))).toEqual([]);
    expect(issues(createKeyInput.safeParse({ name: "a", expiresInDays: 0 }))).toEqual(["expiresInDays"]);
    expect(issues(createKeyInput.safeParse({ name: "a", expiresInDays: 1827 }))).toEqual(["expiresInDays"]);
    const past = new Date(Date.now() - 1000).toISOString();
    expect(issues(createKeyInput.safeParse({ name: "a", expiresAt: past }))).toEqual(["expiresAt"]);
    const far = new Date(Date.now() + 1830 * DAY).toISOString();
    expect(issues(createKeyInput.safeParse({ name: "a", expiresAt: far }))).toEqual(["expiresAt"]);
    expect(issues(createKeyInput.safeParse({ name: "a", expiresInDays: 1, expiresAt: soon }))).toEqual([
      "expiresAt",
    ]);
    expect(expiryOf({ expiresInDays: 2 }, NOW)).toEqual(new Date(NOW + 2 * DAY));
    expect(expiryOf({ expiresAt: soon })).toEqual(new Date(soon));
    expect(expiryOf({})).toBeNull();
  });

  it("changes tools or expiry (null: never), but not nothing", () => {
    expect(updateKeyInput.parse({ expiresAt: null })).toEqual({ expiresAt: null });
    expect(updateKeyInput.parse({ allowedTools: null })).toEqual({ allowedTools: null });
    expect(issues(updateKeyInput.safeParse({}))).toEqual(["allowedTools"]);
    expect(issues(updateKeyInput.safeParse({ expiresAt: "2020-01-01T00:00:00Z" }))).toEqual(["expiresAt"]);
  });

  it("rotates with an overlap of 0 to 720 whole hours, 24 when not given", () => {
    expect(rotateKeyInput.parse({})).toEqual({ overlapHours: 24 });
    expect(rotateKeyInput.parse({ overlapHours: 0 })).toEqual({ overlapHours: 0 });
    for (const overlapHours of [-1, 721, 2.5, null])
      expect(issues(rotateKeyInput.safeParse({ overlapHours }))).toEqual(["overlapHours"]);
  });
});
