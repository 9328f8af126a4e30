import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import {
  clearSignInFailures,
  emailDelayMs,
  recordSignInFailure,
  signInGate,
  THROTTLE,
  throttleRetryAfter,
} from "@/lib/auth/throttle";
import { SOCKET_ADDRESS_HEADER } from "@/lib/http/client-address";
import { useSeededAppDatabase } from "../helpers/app-db";
import { testDbKinds } from "../helpers/db";

// next-auth's signIn would need a Next request; the route's own throttle runs before it is reached.
const signIn = vi.hoisted(() => vi.fn());
vi.mock("@/lib/auth", () => ({ signIn }));
const loginRoute = await import("@/app/api/login/route");

/** POST /api/login as a client at `socket` (the address the server's socket hook would stamp). */
const login = (email: string, socket: string, forwardedFor?: string) =>
  loginRoute.POST(
    new Request("http://app/api/login", {
      method: "POST",
      headers: {
        "content-type": "application/json",
        [SOCKET_ADDRESS_HEADER]: socket,
        ...(forwardedFor ? { "x-forwarded-for": forwardedFor } : {}),
      },
      body: JSON.stringify({ email, password: "tollgate-demo" }),
    }),
    { params: Promise.resolve({}) },
  );

describe.each(testDbKinds)("the sign-in throttle on %s", (kind) => {
  let app: Awaited<ReturnType<typeof useSeededAppDatabase>>;
  beforeAll(async () => {
    app = await useSeededAppDatabase(kind);
  });
  afterAll(async () => {
    await app.close();
  });
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it("blocks an email from one address after a burst of failures; from another it is only delayed", async () => {
    const keys = { email: "Burst@Acme.test", address: "10.1.1.1" };
    const t0 = new Date("2026-11-29T10:00:00Z");
    for (let i = 1; i < THROTTLE.maxFailuresPerPair; i++) {
      await recordSignInFailure(app.db, keys, new Date(t0.getTime() + i * 1000));
      expect(await throttleRetryAfter(app.db, keys, t0)).toBe(0);
    }
    const last = new Date(t0.getTime() + 10_000);
    await recordSignInFailure(app.db, keys, last);
    expect(await throttleRetryAfter(app.db, keys, last)).toBe(THROTTLE.windowSeconds);
    // The pair is blocked whatever the email's case; the same email from elsewhere is not, only slowed down.
    expect(await throttleRetryAfter(app.db, { email: "burst@acme.TEST", address: "10.1.1.1" }, last)).toBe(
      THROTTLE.windowSeconds,
    );
    const elsewhere = await signInGate(app.db, { email: "burst@acme.test", address: "10.9.9.9" }, last);
    expect(elsewhere).toEqual({ retryAfterSeconds: 0, delayMs: emailDelayMs(THROTTLE.maxFailuresPerPair) });
    expect(elsewhere.delayMs).toBeGreaterThan(0);
    expect(await signInGate(app.db, { email: "calm@acme.test", address: "10.9.9.9" }, last)).toEqual({
      retryAfterSeconds: 0,
      delayMs: 0,
    });
    // And it lifts when the window has passed.
    const later = new Date(last.getTime() + (THROTTLE.windowSeconds + 1) * 1000);
    expect(await signInGate(app.db, keys, later)).toEqual({ retryAfterSeconds: 0, delayMs: 0 });
  });

  it("grows the email's delay with its failures, up to a cap", () => {
    const delays = Array.from({ length: 12 }, (_, failures) => emailDelayMs(failures));
    expect(delays.slice(0, THROTTLE.emailDelayAfterFailures + 1).every((d) => d === 0)).toBe(true);
    for (let i = 1; i < delays.length; i++) expect(delays[i]).toBeGreaterThanOrEqual(delays[i - 1]!);
    expect(delays.at(-1)).toBe(THROTTLE.emailDelayMaxMs);
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

  it("starts counting afresh after a quiet window, and forgets the email's failures on success", async () => {
    const keys = { email: "slow@acme.test", address: "10.4.4.4" };
    const t0 = new Date("2026-11-29T12:00:00Z");
    for (let i = 0; i < THROTTLE.maxFailuresPerPair - 1; i++) await recordSignInFailure(app.db, keys, t0);
    const nextWindow = new Date(t0.getTime() + (THROTTLE.windowSeconds + 5) * 1000);
    await recordSignInFailure(app.db, keys, nextWindow);
    expect(await signInGate(app.db, keys, nextWindow)).toEqual({ retryAfterSeconds: 0, delayMs: 0 });
    for (let i = 0; i < THROTTLE.maxFailuresPerPair - 2; i++)
      await recordSignInFailure(app.db, keys, nextWindow);
    expect((await signInGate(app.db, keys, nextWindow)).delayMs).toBeGreaterThan(0);
    await clearSignInFailures(app.db, keys);
    await recordSignInFailure(app.db, keys, nextWindow);
    expect(await signInGate(app.db, keys, nextWindow)).toEqual({ retryAfterSeconds: 0, delayMs: 0 });
  });

  it("makes POST /api/login answer 429 with Retry-After while blocked, without checking the password", async () => {
    const keys = { email: "member@acme.test", address: "10.5.5.5" };
    for (let i = 0; i < THROTTLE.maxFailuresPerPair; i++) await recordSignInFailure(app.db, keys);
    signIn.mockClear();
    const res = await login("member@acme.test", "10.5.5.5");
    expect(res.status).toBe(429);
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await res.json()).error.code).toBe("rate_limited");
    expect(signIn).not.toHaveBeenCalled();
  });

  it("lets the owner sign in from another address while a stranger's failures block only the stranger", async () => {
    const stranger = { email: "admin@globex.test", address: "10.6.6.6" };
    for (let i = 0; i < THROTTLE.maxFailuresPerPair; i++) await recordSignInFailure(app.db, stranger);
    signIn.mockClear();
    expect((await login("admin@globex.test", "10.6.6.6")).status).toBe(429);
    expect(signIn).not.toHaveBeenCalled();
    const owner = await login("admin@globex.test", "10.7.7.7");
    expect(owner.status).toBe(200);
    expect(signIn).toHaveBeenCalledTimes(1);
  });

  it("does not believe X-Forwarded-For without TRUST_PROXY: a rotating header is still one address", async () => {
    for (let i = 0; i < THROTTLE.maxFailuresPerAddress; i++) {
      await recordSignInFailure(app.db, { email: `rotate${i}@acme.test`, address: "10.8.8.8" });
    }
    for (const forged of ["198.51.100.1", "198.51.100.2", "203.0.113.99"]) {
      expect((await login("fresh@acme.test", "10.8.8.8", forged)).status).toBe(429);
    }
  });

  it("with TRUST_PROXY=1 counts the last hop of X-Forwarded-For, the address the proxy saw", async () => {
    vi.stubEnv("TRUST_PROXY", "1");
    for (let i = 0; i < THROTTLE.maxFailuresPerAddress; i++) {
      await recordSignInFailure(app.db, { email: `proxied${i}@acme.test`, address: "192.0.2.44" });
    }
    // Behind the proxy (socket 10.0.0.2): the client at 192.0.2.44 is blocked, whatever it put before it.
    expect((await login("fresh@acme.test", "10.0.0.2", "1.1.1.1, 192.0.2.44")).status).toBe(429);
    signIn.mockClear();
    expect((await login("fresh@acme.test", "10.0.0.2", "192.0.2.44, 192.0.2.45")).status).toBe(200);
    expect(signIn).toHaveBeenCalledTimes(1);
  });
});
