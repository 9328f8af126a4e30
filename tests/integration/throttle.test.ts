import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { clearSignInFailures, recordSignInFailure, THROTTLE, throttleRetryAfter } from "@/lib/auth/throttle";
import { useSeededAppDatabase } from "../helpers/app-db";
import { testDbKinds } from "../helpers/db";

// next-auth's signIn would need a Next request; the route's own throttle runs before it is reached.
const signIn = vi.hoisted(() => vi.fn());
vi.mock("@/lib/auth", () => ({ signIn }));
const loginRoute = await import("@/app/api/login/route");

describe.each(testDbKinds)("the sign-in throttle on %s", (kind) => {
  let app: Awaited<ReturnType<typeof useSeededAppDatabase>>;
  beforeAll(async () => {
    app = await useSeededAppDatabase(kind);
  });
  afterAll(async () => {
    await app.close();
  });

  it("blocks an email after a burst of failures, for the rest of the window", async () => {
    const keys = { email: "Burst@Acme.test", address: "10.1.1.1" };
    const t0 = new Date("2026-11-29T10:00:00Z");
    for (let i = 1; i < THROTTLE.maxFailuresPerEmail; i++) {
      await recordSignInFailure(app.db, keys, new Date(t0.getTime() + i * 1000));
      expect(await throttleRetryAfter(app.db, keys, t0)).toBe(0);
    }
    const last = new Date(t0.getTime() + 10_000);
    await recordSignInFailure(app.db, keys, last);
    const wait = await throttleRetryAfter(app.db, keys, last);
    expect(wait).toBe(THROTTLE.windowSeconds);
    // The email is blocked whatever its case, from any address; another email is not.
    expect(
      await throttleRetryAfter(app.db, { email: "burst@acme.TEST", address: "10.9.9.9" }, last),
    ).toBeGreaterThan(0);
    expect(await throttleRetryAfter(app.db, { email: "calm@acme.test", address: "10.9.9.9" }, last)).toBe(0);
    // And it lifts when the window has passed.
    const later = new Date(last.getTime() + (THROTTLE.windowSeconds + 1) * 1000);
    expect(await throttleRetryAfter(app.db, keys, later)).toBe(0);
  });

  it("blocks an address that sprays many emails, even though no one email reaches its limit", async () => {
    const now = new Date("2026-11-29T11:00:00Z");
    for (let i = 0; i < THROTTLE.maxFailuresPerAddress; i++) {
      await recordSignInFailure(app.db, { email: `spray${i}@acme.test`, address: "10.2.2.2" }, now);
    }
    expect(
      await throttleRetryAfter(app.db, { email: "fresh@acme.test", address: "10.2.2.2" }, now),
    ).toBeGreaterThan(0);
    expect(await throttleRetryAfter(app.db, { email: "fresh@acme.test", address: "10.3.3.3" }, now)).toBe(0);
  });

  it("starts counting afresh after a quiet window, and forgets an email's failures on success", async () => {
    const keys = { email: "slow@acme.test", address: "10.4.4.4" };
    const t0 = new Date("2026-11-29T12:00:00Z");
    for (let i = 0; i < THROTTLE.maxFailuresPerEmail - 1; i++) await recordSignInFailure(app.db, keys, t0);
    const nextWindow = new Date(t0.getTime() + (THROTTLE.windowSeconds + 5) * 1000);
    await recordSignInFailure(app.db, keys, nextWindow);
    expect(await throttleRetryAfter(app.db, keys, nextWindow)).toBe(0);
    for (let i = 0; i < THROTTLE.maxFailuresPerEmail - 2; i++)
      await recordSignInFailure(app.db, keys, nextWindow);
    await clearSignInFailures(app.db, keys.email);
    await recordSignInFailure(app.db, keys, nextWindow);
    expect(await throttleRetryAfter(app.db, keys, nextWindow)).toBe(0);
  });

  it("makes POST /api/login answer 429 with Retry-After while blocked, without checking the password", async () => {
    const keys = { email: "member@acme.test", address: "10.5.5.5" };
    for (let i = 0; i < THROTTLE.maxFailuresPerEmail; i++) await recordSignInFailure(app.db, keys);
    signIn.mockClear();
    const res = await loginRoute.POST(
      new Request("http://app/api/login", {
        method: "POST",
        headers: { "content-type": "application/json", "x-forwarded-for": "10.5.5.5" },
        body: JSON.stringify({ email: "member@acme.test", password: "tollgate-demo" }),
      }),
      { params: Promise.resolve({}) },
    );
    expect(res.status).toBe(429);
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await res.json()).error.code).toBe("rate_limited");
    expect(signIn).not.toHaveBeenCalled();
  });
});
