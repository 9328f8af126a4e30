import { eq } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { appUser } from "@/db/schema";
import { useSeededAppDatabase } from "../helpers/app-db";
import { testDbKinds } from "../helpers/db";
import { session } from "../helpers/session";

// The signed session cookie is next-auth's job; here we decide what it says and test what the guards make of it.
vi.mock("@/lib/auth/session", () => import("../helpers/session"));
const update = vi.hoisted(() => vi.fn(async () => null));
vi.mock("@/lib/auth", () => ({ unstable_update: update }));

const { withSuperAdmin, withTenantAdmin, withUser } = await import("@/lib/auth/guards");
const tenantRoute = await import("@/app/api/tenants/[tenantId]/route");
const switchRoute = await import("@/app/api/session/tenant/route");

const ok = async () => Response.json({ ok: true });
const call = (handler: ReturnType<typeof withUser>) =>
  handler(new Request("http://app/api/x"), { params: Promise.resolve({}) });

describe.each(testDbKinds)("guards on %s", (kind) => {
  let app: Awaited<ReturnType<typeof useSeededAppDatabase>>;
  const signInAs = async (email: string, tenantSlug?: string) => {
    session.claims = {
      userId: await app.userId(email),
      tenantId: tenantSlug ? await app.tenantId(tenantSlug) : null,
    };
  };

  beforeAll(async () => {
    app = await useSeededAppDatabase(kind);
  });
  afterAll(async () => {
    await app.close();
  });
  beforeEach(() => {
    session.claims = null;
    update.mockClear();
  });

  it("answers 401 to a signed-out caller, whatever the guard", async () => {
    for (const guard of [withUser, withTenantAdmin, withSuperAdmin]) {
      const res = await call(guard(ok));
      expect(res.status).toBe(401);
      expect((await res.json()).error.code).toBe("unauthorized");
    }
  });

  it("answers 403 to a member at a tenant-admin handler, and lets the tenant admin through", async () => {
    await signInAs("member@acme.test");
    expect((await call(withUser(ok))).status).toBe(200);
    expect((await call(withTenantAdmin(ok))).status).toBe(403);
    await signInAs("admin@acme.test");
    expect((await call(withTenantAdmin(ok))).status).toBe(200);
  });

  it("keeps the super-admin handlers to the super admin", async () => {
    await signInAs("admin@globex.test");
    expect((await call(withSuperAdmin(ok))).status).toBe(403);
    await signInAs("root@tollgate.test");
    expect((await call(withSuperAdmin(ok))).status).toBe(200);
    expect((await call(withTenantAdmin(ok))).status).toBe(200);
  });

  it("judges the role in the active tenant: multi is a member of Acme and an admin of Globex", async () => {
    await signInAs("multi@tollgate.test", "acme");
    expect((await call(withTenantAdmin(ok))).status).toBe(403);
    await signInAs("multi@tollgate.test", "globex");
    expect((await call(withTenantAdmin(ok))).status).toBe(200);
  });

  it("answers 404 for another tenant's id, and 200 for one's own", async () => {
    await signInAs("admin@acme.test");
    const get = async (tenantId: string) =>
      tenantRoute.GET(new Request(`http://app/api/tenants/${tenantId}`), {
        params: Promise.resolve({ tenantId }),
      });
    const own = await get(await app.tenantId("acme"));
    expect(own.status).toBe(200);
    expect(await own.json()).toMatchObject({ name: "Acme", role: "admin", members: 3 });
    const other = await get(await app.tenantId("globex"));
    expect(other.status).toBe(404);
    expect((await other.json()).error.message).toBe("tenant not found");
    expect((await get("01900000-0000-7000-8000-000000000000")).status).toBe(404);
  });

  it("switches the active tenant only to a tenant of the user's", async () => {
    const post = (tenantId: string | null) =>
      switchRoute.POST(
        new Request("http://app/api/session/tenant", { method: "POST", body: JSON.stringify({ tenantId }) }),
        { params: Promise.resolve({}) },
      );
    await signInAs("member@acme.test");
    expect((await post(await app.tenantId("globex"))).status).toBe(404);
    expect((await post(null)).status).toBe(403);
    expect((await post("not-a-uuid" as string)).status).toBe(422);
    expect(update).not.toHaveBeenCalled();

    await signInAs("multi@tollgate.test", "acme");
    const globex = await app.tenantId("globex");
    const res = await post(globex);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ tenant: { name: "Globex", role: "admin" }, role: "admin" });
    expect(update).toHaveBeenCalledWith({ tenantId: globex });
  });

  it("shuts out a disabled user at once, even with a valid session", async () => {
    await signInAs("member@globex.test");
    expect((await call(withUser(ok))).status).toBe(200);
    await app.db.update(appUser).set({ disabled: true }).where(eq(appUser.email, "member@globex.test"));
    expect((await call(withUser(ok))).status).toBe(401);
  });
});
