import { describe, expect, it } from "vitest";
import { safeCallbackPath } from "@/lib/auth/sign-in";

describe("where sign-in returns to", () => {
  it("returns to the page the visitor asked for", () => {
    expect(safeCallbackPath("/dev/agent/turns?status=failed")).toBe("/dev/agent/turns?status=failed");
  });
  it("never leaves the site or loops back to /login", () => {
    for (const bad of [
      "https://evil.test/",
      "//evil.test",
      "/\\evil.test",
      "javascript:alert(1)",
      "/login?x=1",
      "",
    ]) {
      expect(safeCallbackPath(bad)).toBe("/");
    }
    expect(safeCallbackPath(undefined)).toBe("/");
  });
});
