import { describe, expect, it } from "vitest";
import { hashPassword, passwordProblem, verifyPassword } from "@/lib/auth/password";

describe("password hashing", () => {
  it("verifies the password it hashed and rejects any other", async () => {
    const hash = await hashPassword("correct horse battery");
    expect(hash).toMatch(/^\$2[aby]\$\d\d\$/);
    expect(hash).not.toContain("correct horse");
    expect(await verifyPassword("correct horse battery", hash)).toBe(true);
    expect(await verifyPassword("correct horse batterx", hash)).toBe(false);
  });

  it("salts every hash, so equal passwords do not share a hash", async () => {
    expect(await hashPassword("same-password")).not.toBe(await hashPassword("same-password"));
  });

  it("never verifies against a missing hash (an SSO-only account)", async () => {
    expect(await verifyPassword("anything", null)).toBe(false);
    expect(await verifyPassword("", undefined)).toBe(false);
  });

  it("refuses passwords that are too short or longer than bcrypt reads", async () => {
    expect(passwordProblem("short")).toMatch(/at least 8/);
    expect(passwordProblem("x".repeat(73))).toMatch(/at most 72 bytes/);
    expect(passwordProblem("long enough")).toBeNull();
    await expect(hashPassword("short")).rejects.toThrow(/at least 8/);
  });
});
