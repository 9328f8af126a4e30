// Email domains for single sign-on auto-join are the platform's to grant: a tenant admin reads them, only the super
// admin changes them, and a domain belongs to one tenant at most.
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { adminChange, appUser, tenantSsoDomain } from "@/db/schema";
import { useSeededAppDatabase } from "../helpers/app-db";
import { testDbKinds } from "../helpers/db";
import { session } from "../helpers/session";

vi.mock("@/lib/auth/session", () => import("../helpers/session"));

const signInRoute = await import("@/app/api/admin/sign-in-settings/route");

async function call(handler: (req: Request) => Promise<Response>, method: string, body?: unknown) {
  const res = await handler(
    new Request("http://app.test/api/admin/sign-in-settings", {
      method,
      headers: { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
  );
  return { status: res.status, body: await res.json() };
}
const get = () => call(signInRoute.GET as never, "GET");
const put = (ssoDomains: unknown) => call(signInRoute.PUT as never, "PUT", { ssoDomains });

describe.each(testDbKinds)("single sign-on domains on %s", (kind) => {
  let app: Awaited<ReturnType<typeof useSeededAppDatabase>>;
  const as = async (email: string, slug: string) => {
    const userId = await app.userId(email);
    const [u] = await app.db.select().from(appUser).where(eq(appUser.id, userId));
    session.claims = { userId, tenantId: await app.tenantId(slug), epoch: u!.sessionEpoch };
  };
  const held = async () =>
    (await app.db.select().from(tenantSsoDomain).orderBy(tenantSsoDomain.domain)).map((r) => ({
      domain: r.domain,
      tenantId: r.tenantId,
    }));

  beforeAll(async () => {
    app = await useSeededAppDatabase(kind);
  });
  afterAll(() => app.close());

  it("a tenant admin reads the domains but may not set them (403 saying who grants them)", async () => {
    await as("root@tollgate.test", "acme");
    expect((await put(["acme-corp.test"])).status).toBe(200);

    await as("admin@acme.test", "acme");
    const read = await get();
    expect(read).toMatchObject({ status: 200, body: { ssoDomains: ["acme-corp.test"], canEdit: false } });
    const refused = await put(["acme-corp.test", "gmail.com"]);
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({
      code: "forbidden",
      message: expect.stringContaining("granted by the platform admin"),
    });
    // Clearing them is a change too: refused the same way.
    expect((await put([])).status).toBe(403);
    expect((await held()).map((h) => h.domain)).toEqual(["acme-corp.test"]);
  });

  it("the super admin grants a domain to one tenant only: a second claim is 409 naming it, and changes nothing", async () => {
    const acme = await app.tenantId("acme");
    const globex = await app.tenantId("globex");
    await as("root@tollgate.test", "acme");
    expect((await get()).body.canEdit).toBe(true);
    expect((await put(["acme-corp.test", "Shared.TEST"])).body.ssoDomains).toEqual([
      "acme-corp.test",
      "shared.test",
    ]);

    await as("root@tollgate.test", "globex");
    const before = await app.db.select().from(adminChange).where(eq(adminChange.tenantId, globex));
    const taken = await put(["globex.example", "shared.test"]);
    expect(taken.status).toBe(409);
    expect(taken.body.error.message).toContain("shared.test");
    expect(taken.body.error.message).toContain('"Acme"');
    // The form shows each field message after its domain: "shared.test: already belongs to the tenant "Acme"".
    expect(taken.body.error.fields).toEqual({ "ssoDomains.1": ['already belongs to the tenant "Acme"'] });
    // Nothing of the refused request was kept, not even the free domain, and no change row was written.
    expect(await held()).toEqual([
      { domain: "acme-corp.test", tenantId: acme },
      { domain: "shared.test", tenantId: acme },
    ]);
    expect(await app.db.select().from(adminChange).where(eq(adminChange.tenantId, globex))).toHaveLength(
      before.length,
    );

    // Released by Acme, the domain may go to Globex.
    await as("root@tollgate.test", "acme");
    expect((await put(["acme-corp.test"])).status).toBe(200);
    await as("root@tollgate.test", "globex");
    expect((await put(["shared.test"])).status).toBe(200);
    expect(await held()).toEqual([
      { domain: "acme-corp.test", tenantId: acme },
      { domain: "shared.test", tenantId: globex },
    ]);
  });
});
