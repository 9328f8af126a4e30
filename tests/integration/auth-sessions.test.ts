import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { authSession } from "@/db/schema";
import { useSeededAppDatabase } from "../helpers/app-db";
import { testDbKinds } from "../helpers/db";

// What next-auth decoded from the cookie; the session's row in the database decides whether it still counts.
const cookie = vi.hoisted(() => ({
  session: null as null | { user: { id: string }; tenantId: null; epoch: number; sessionId?: string },
}));
vi.mock("@/lib/auth", () => ({ auth: async () => cookie.session }));

const { withUser } = await import("@/lib/auth/guards");
const { openSession, revokeSession } = await import("@/lib/auth/sessions");

const me = withUser(async (_req, { auth }) => Response.json({ email: auth.user.email }));
const callMe = () => me(new Request("http://app/api/me"), { params: Promise.resolve({}) });

describe.each(testDbKinds)("server-side sessions on %s", (kind) => {
  let app: Awaited<ReturnType<typeof useSeededAppDatabase>>;
  beforeAll(async () => {
    app = await useSeededAppDatabase(kind);
  });
  afterAll(async () => {
    await app.close();
  });

  const cookieFor = (userId: string, sessionId?: string) => {
    cookie.session = { user: { id: userId }, tenantId: null, epoch: 0, sessionId };
  };

  it("accepts the cookie of an open session and refuses it once that session is signed out", async () => {
    const userId = await app.userId("member@acme.test");
    const sid = await openSession(app.db, {
      userId,
      userAgent: "Test browser",
      ip: "10.0.0.9",
      maxAgeSeconds: 3600,
    });
    cookieFor(userId, sid);
    expect((await callMe()).status).toBe(200);
    await revokeSession(app.db, sid);
    const res = await callMe();
    expect(res.status).toBe(401);
    expect((await res.json()).error.code).toBe("unauthorized");
    const [row] = await app.db.select().from(authSession).where(eq(authSession.id, sid));
    expect(row).toMatchObject({ userId, userAgent: "Test browser", ip: "10.0.0.9" });
    expect(row?.revokedAt).toBeInstanceOf(Date);
  });

  it("refuses a cookie with no session id, an unknown one, or another user's", async () => {
    const userId = await app.userId("member@acme.test");
    const otherId = await app.userId("admin@acme.test");
    cookieFor(userId);
    expect((await callMe()).status).toBe(401);
    cookieFor(userId, "0190aaaa-0000-7000-8000-000000000000");
    expect((await callMe()).status).toBe(401);
    cookieFor(userId, "not-a-uuid");
    expect((await callMe()).status).toBe(401);
    const othersSid = await openSession(app.db, { userId: otherId, maxAgeSeconds: 3600 });
    cookieFor(userId, othersSid);
    expect((await callMe()).status).toBe(401);
  });

  it("signing out one session leaves the user's other sessions open", async () => {
    const userId = await app.userId("admin@globex.test");
    const laptop = await openSession(app.db, { userId, maxAgeSeconds: 3600 });
    const phone = await openSession(app.db, { userId, maxAgeSeconds: 3600 });
    await revokeSession(app.db, laptop);
    cookieFor(userId, phone);
    expect((await callMe()).status).toBe(200);
  });

  it("drops the user's long-dead session rows when a new session opens", async () => {
    const userId = await app.userId("member@globex.test");
    const old = await openSession(app.db, { userId, maxAgeSeconds: 60 }, new Date("2020-01-01T00:00:00Z"));
    await openSession(app.db, { userId, maxAgeSeconds: 60 });
    expect(await app.db.select().from(authSession).where(eq(authSession.id, old))).toEqual([]);
  });
});
