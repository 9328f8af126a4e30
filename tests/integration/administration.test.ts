import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { adminChange, appUser, authThrottle, membership, sysAgentTurn, tenant } from "@/db/schema";
import { bumpSessionEpoch, changePassword } from "@/features/account/server/account";
import { createApiKey } from "@/features/keys/server/keys";
import { acceptInvitation, createInvitation, lookupInvitation } from "@/features/members/server/members";
import { clearApiKeyCache, findApiKey } from "@/lib/auth/api-keys";
import { verifyPassword } from "@/lib/auth/password";
import { loadUserContext, mayEnter } from "@/lib/auth/users";
import { useSeededAppDatabase } from "../helpers/app-db";
import { testDbKinds } from "../helpers/db";
import { schemaGet, schemaJson } from "../helpers/schema-api";
import { session } from "../helpers/session";

vi.mock("@/lib/auth/session", () => import("../helpers/session"));
vi.mock("@/lib/auth", () => ({ unstable_update: async () => null }));

const tenantsRoute = await import("@/app/api/admin/tenants/route");
const tenantRoute = await import("@/app/api/admin/tenants/[id]/route");
const membersRoute = await import("@/app/api/admin/members/route");
const memberRoute = await import("@/app/api/admin/members/[userId]/route");
const invitationsRoute = await import("@/app/api/admin/invitations/route");
const invitationRoute = await import("@/app/api/admin/invitations/[id]/route");
const publicInvitation = await import("@/app/api/invitations/[token]/route");
const acceptRoute = await import("@/app/api/invitations/[token]/accept/route");
const keysRoute = await import("@/app/api/keys/route");
const keyRoute = await import("@/app/api/keys/[id]/route");
const limitsRoute = await import("@/app/api/governance/limits/route");
const settingsRoute = await import("@/app/api/governance/settings/route");
const signInRoute = await import("@/app/api/admin/sign-in-settings/route");
const conversationsRoute = await import("@/app/api/agent/conversations/route");

type Handler<P> = (req: Request, segment: { params: Promise<P> }) => Promise<Response>;
async function call<P = Record<string, never>>(
  handler: Handler<P>,
  method: string,
  params: P = {} as P,
  body?: unknown,
) {
  const res = await handler(
    new Request("http://app.test/api/x", {
      method,
      headers: { "content-type": "application/json", "x-request-id": `req-${Math.random()}` },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
    { params: Promise.resolve(params) },
  );
  return { status: res.status, body: await res.json(), headers: res.headers };
}

describe.each(testDbKinds)("tenant and member administration on %s", (kind) => {
  let app: Awaited<ReturnType<typeof useSeededAppDatabase>>;
  let acme: string;
  let globex: string;
  const as = async (email: string, slug?: string) => {
    const userId = await app.userId(email);
    const [u] = await app.db.select().from(appUser).where(eq(appUser.id, userId));
    session.claims = { userId, tenantId: slug ? await app.tenantId(slug) : null, epoch: u!.sessionEpoch };
  };
  const changes = (action: string) =>
    app.db.select().from(adminChange).where(eq(adminChange.action, action)).orderBy(adminChange.createdAt);

  beforeAll(async () => {
    app = await useSeededAppDatabase(kind);
    acme = await app.tenantId("acme");
    globex = await app.tenantId("globex");
  });
  afterAll(() => app.close());

  it("an invitation is accepted once, then refused as used; an expired or revoked one is refused too", async () => {
    await as("admin@acme.test", "acme");
    const created = await call(
      invitationsRoute.POST,
      "POST",
      {},
      { email: "New.Colleague@Acme.test", role: "admin" },
    );
    expect(created.status).toBe(201);
    const token = created.body.link.split("/invite/")[1];
    expect(created.body.link).toBe(`http://app.test/invite/${token}`);
    expect(
      (await call(membersRoute.GET, "GET")).body.invitations.map((i: { email: string }) => i.email),
    ).toContain("new.colleague@acme.test");

    session.claims = null;
    const lookup = await call(publicInvitation.GET, "GET", { token });
    expect(lookup.body.invitation).toMatchObject({ tenantName: "Acme", role: "admin", accountExists: false });
    const weak = await call(acceptRoute.POST, "POST", { token }, { name: "New", password: "short" });
    expect(weak.status).toBe(422);
    expect(weak.body.error.fields.password).toBeDefined();
    const ok = await call(
      acceptRoute.POST,
      "POST",
      { token },
      { name: "New Colleague", password: "a-good-password" },
    );
    expect(ok.status).toBe(200);
    const again = await call(
      acceptRoute.POST,
      "POST",
      { token },
      { name: "Someone", password: "another-password" },
    );
    expect(again.status).toBe(410);
    expect(again.body.error.message).toMatch(/already been used/);

    const userId = await app.userId("new.colleague@acme.test");
    const [m] = await app.db
      .select()
      .from(membership)
      .where(and(eq(membership.tenantId, acme), eq(membership.userId, userId)));
    expect(m!.role).toBe("admin");
    const [user] = await app.db.select().from(appUser).where(eq(appUser.id, userId));
    expect(await verifyPassword("a-good-password", user!.passwordHash)).toBe(true);

    // Expired: made a week and a day ago.
    const actor = { id: await app.userId("admin@acme.test"), email: "admin@acme.test" };
    const old = await createInvitation(
      app.db,
      actor,
      acme,
      { email: "late@acme.test", role: "member", expiresInDays: 7 },
      new Date(Date.now() - 8 * 86_400_000),
    );
    expect((await call(publicInvitation.GET, "GET", { token: old.token })).status).toBe(410);
    await expect(
      acceptInvitation(app.db, old.token, { name: "Late", password: "late-password" }),
    ).rejects.toMatchObject({ status: 410, message: expect.stringMatching(/expired/) });

    // Revoked.
    await as("admin@acme.test", "acme");
    const revokable = await call(invitationsRoute.POST, "POST", {}, { email: "revoked@acme.test" });
    const revokedToken = revokable.body.link.split("/invite/")[1];
    expect((await call(invitationRoute.DELETE, "DELETE", { id: revokable.body.invitation.id })).status).toBe(
      200,
    );
    const refused = await call(
      acceptRoute.POST,
      "POST",
      { token: revokedToken },
      { name: "R", password: "r-password-1" },
    );
    expect(refused.status).toBe(410);
    expect(refused.body.error.message).toMatch(/revoked/);
    expect((await call(publicInvitation.GET, "GET", { token: "no-such-token" })).status).toBe(404);

    // A second invitation for a pending email is refused, naming the one that is pending.
    await as("admin@acme.test", "acme");
    const twice = await call(invitationsRoute.POST, "POST", {}, { email: "late@acme.test" });
    expect(twice.status).toBe(201);
    const again2 = await call(invitationsRoute.POST, "POST", {}, { email: "late@acme.test" });
    expect(again2.status).toBe(409);
    expect(again2.body.error.message).toMatch(/already has a pending invitation/);

    // Someone with an account proves it with their own password instead of setting one.
    const forMulti = await createInvitation(app.db, actor, acme, {
      email: "admin@globex.test",
      role: "member",
      expiresInDays: 7,
    });
    expect((await lookupInvitation(app.db, forMulti.token)).accountExists).toBe(true);
    // Guessing that account's password through the invitation is throttled like sign-in.
    session.claims = null;
    for (let i = 0; i < 5; i++)
      expect(
        (await call(acceptRoute.POST, "POST", { token: forMulti.token }, { password: `guess-${i}` })).status,
      ).toBe(401);
    const throttled = await call(
      acceptRoute.POST,
      "POST",
      { token: forMulti.token },
      { password: "tollgate-demo" },
    );
    expect(throttled.status).toBe(429);
    await app.db.delete(authThrottle);
    await expect(
      acceptInvitation(app.db, forMulti.token, { password: "wrong-password" }),
    ).rejects.toMatchObject({
      status: 401,
    });
    await acceptInvitation(app.db, forMulti.token, { password: "tollgate-demo" });

    expect(await changes("invitation.created")).toHaveLength(5);
    expect(await changes("invitation.revoked")).toHaveLength(1);
    const accepted = await changes("invitation.accepted");
    expect(accepted).toHaveLength(2);
    expect(accepted[0]).toMatchObject({
      before: { status: "pending", role: "admin" },
      after: { status: "accepted", role: "admin" },
    });
  });

  it("a role change takes effect on the next request, and a removed member's session loses access at once", async () => {
    await as("member@acme.test", "acme");
    expect((await call(keysRoute.GET, "GET")).status).toBe(403);
    expect((await call(conversationsRoute.GET, "GET")).status).toBe(200);
    const memberId = session.claims!.userId;

    await as("admin@acme.test", "acme");
    const promoted = await call(memberRoute.PATCH, "PATCH", { userId: memberId }, { role: "admin" });
    expect(promoted.body.member).toMatchObject({ role: "admin", email: "member@acme.test" });
    await as("member@acme.test", "acme");
    expect((await call(keysRoute.GET, "GET")).status).toBe(200);

    await as("admin@acme.test", "acme");
    await call(memberRoute.PATCH, "PATCH", { userId: memberId }, { role: "member" });
    const claims = { userId: memberId, tenantId: acme, epoch: 0 };
    expect((await call(memberRoute.DELETE, "DELETE", { userId: memberId })).status).toBe(200);
    // The same session, unchanged: the next request finds no tenant to act in.
    session.claims = claims;
    const after = await call(conversationsRoute.GET, "GET");
    expect(after.status).toBe(400);
    expect(after.body.error.message).toMatch(/choose a tenant/);
    // Their ledger rows and conversations stay with the tenant.
    const rows = await app.db.select().from(sysAgentTurn).where(eq(sysAgentTurn.userId, memberId));
    expect(rows.every((r) => r.tenantId === acme || r.tenantId === globex)).toBe(true);

    const roleChanges = await changes("member.role_changed");
    expect(roleChanges.map((c) => [c.before?.role, c.after?.role])).toEqual([
      ["member", "admin"],
      ["admin", "member"],
    ]);
    expect(await changes("member.removed")).toMatchObject([
      { before: { email: "member@acme.test", role: "member" }, after: null, objectId: memberId },
    ]);
  });

  it("the last admin of a tenant cannot demote or remove themselves", async () => {
    await as("admin@globex.test", "globex");
    const admins = (await call(membersRoute.GET, "GET")).body.members.filter(
      (m: { role: string }) => m.role === "admin",
    );
    // Globex has two admins (admin@globex.test and multi@tollgate.test): demote one, then the other is last.
    expect(admins).toHaveLength(2);
    const other = admins.find((m: { email: string }) => m.email !== "admin@globex.test");
    await call(memberRoute.PATCH, "PATCH", { userId: other.userId }, { role: "member" });
    const self = session.claims!.userId;
    const demote = await call(memberRoute.PATCH, "PATCH", { userId: self }, { role: "member" });
    expect(demote.status).toBe(409);
    expect(demote.body.error.message).toMatch(/last admin/);
    expect((await call(memberRoute.DELETE, "DELETE", { userId: self })).status).toBe(409);
    await call(memberRoute.PATCH, "PATCH", { userId: other.userId }, { role: "admin" });
  });

  it("a disabled tenant's users cannot sign in and its API keys answer 401; re-enabled, both work again", async () => {
    const user = await app.userId("member@globex.test");
    const key = await createApiKey(app.db, {
      tenantId: globex,
      name: "globex app",
      createdBy: await app.userId("admin@globex.test"),
    });
    expect(await findApiKey(app.db, key.secret)).not.toBeNull();
    expect(await mayEnter(app.db, user)).toBe(true);

    await as("admin@globex.test", "globex");
    expect((await call(tenantRoute.PATCH, "PATCH", { id: globex }, { disabled: true })).status).toBe(403);
    await as("root@tollgate.test");
    const disabled = await call(tenantRoute.PATCH, "PATCH", { id: globex }, { disabled: true });
    expect(disabled.body.tenant).toMatchObject({ disabled: true, name: "Globex" });
    expect(await mayEnter(app.db, user)).toBe(false);
    expect(await findApiKey(app.db, key.secret)).toBeNull();
    // multi@tollgate.test also belongs to Acme: they may still sign in, and only see Acme.
    const multi = await app.userId("multi@tollgate.test");
    expect(await mayEnter(app.db, multi)).toBe(true);
    expect((await loadUserContext(app.db, multi, globex))!.tenants.map((t) => t.name)).toEqual(["Acme"]);

    await call(tenantRoute.PATCH, "PATCH", { id: globex }, { disabled: false });
    clearApiKeyCache();
    expect(await mayEnter(app.db, user)).toBe(true);
    expect(await findApiKey(app.db, key.secret)).not.toBeNull();
    expect((await changes("tenant.disabled"))[0]).toMatchObject({
      before: { disabled: false },
      after: { disabled: true },
      actorEmail: "root@tollgate.test",
    });
    expect(await changes("tenant.enabled")).toHaveLength(1);
  });

  it("the super admin creates and renames tenants and sees each with members, last activity and spend", async () => {
    await as("root@tollgate.test");
    const created = await call(tenantsRoute.POST, "POST", {}, { name: "Initech Labs" });
    expect(created.status).toBe(201);
    expect(created.body.tenant).toMatchObject({ name: "Initech Labs", slug: "initech-labs", members: 0 });
    const dup = await call(tenantsRoute.POST, "POST", {}, { name: "Again", slug: "initech-labs" });
    expect(dup.status).toBe(409);
    expect(dup.body.error.fields.slug).toBeDefined();
    expect((await call(tenantsRoute.POST, "POST", {}, { name: "" })).body.error.fields.name).toBeDefined();
    const renamed = await call(
      tenantRoute.PATCH,
      "PATCH",
      { id: created.body.tenant.id },
      { name: "Initech" },
    );
    expect(renamed.body.tenant.name).toBe("Initech");
    const list = (await call(tenantsRoute.GET, "GET")).body.tenants;
    expect(list.find((t: { slug: string }) => t.slug === "acme")).toMatchObject({
      members: expect.any(Number),
    });
    expect((await changes("tenant.renamed"))[0]).toMatchObject({
      before: { name: "Initech Labs" },
      after: { name: "Initech" },
    });
    await as("admin@acme.test", "acme");
    expect((await call(tenantsRoute.GET, "GET")).status).toBe(403);
  });

  it("changing your password requires the current one and ends your other sessions", async () => {
    const userId = await app.userId("member@globex.test");
    await expect(
      changePassword(app.db, userId, { currentPassword: "not-it", newPassword: "brand-new-password" }),
    ).rejects.toMatchObject({ status: 422, extra: { fields: { currentPassword: expect.any(Array) } } });
    const epoch = await changePassword(app.db, userId, {
      currentPassword: "tollgate-demo",
      newPassword: "brand-new-password",
    });
    const [u] = await app.db.select().from(appUser).where(eq(appUser.id, userId));
    expect(await verifyPassword("brand-new-password", u!.passwordHash)).toBe(true);
    // A session from before (epoch 0) is over; the re-issued one (new epoch) goes on.
    expect(await loadUserContext(app.db, userId, globex, 0)).toBeNull();
    expect(await loadUserContext(app.db, userId, globex, epoch)).not.toBeNull();
    const next = await bumpSessionEpoch(app.db, userId);
    expect(await loadUserContext(app.db, userId, globex, epoch)).toBeNull();
    expect(next).toBe(epoch + 1);
  });

  it("a tenant admin sets the archive window shorter than the retention, or clears it; anything else is 422 by name", async () => {
    await as("admin@acme.test", "acme");
    const before = await call(settingsRoute.GET, "GET");
    const base = {
      retentionDays: 90,
      cacheAliases: [],
      cacheTtlSeconds: before.body.cacheTtlSeconds,
    };
    // The deployment's archive (ARCHIVE_DIR / ARCHIVE_S3_BUCKET) and default window are shown beside it.
    expect(before.body.archive).toEqual({ defaultDays: null, configured: false });
    const saved = await call(settingsRoute.PUT, "PUT", {}, { ...base, archiveAfterDays: 30 });
    expect(saved.status).toBe(200);
    expect(saved.body.archiveAfterDays).toBe(30);
    const [row] = await app.db.select().from(tenant).where(eq(tenant.id, acme));
    expect(row!.archiveAfterDays).toBe(30);
    // Omitted: unchanged.
    expect((await call(settingsRoute.PUT, "PUT", {}, base)).body.archiveAfterDays).toBe(30);
    // Not shorter than the retention: nothing would ever be archived.
    const equal = await call(settingsRoute.PUT, "PUT", {}, { ...base, archiveAfterDays: 90 });
    expect(equal.status).toBe(422);
    expect(JSON.stringify(equal.body)).toContain("archiveAfterDays");
    // The retention cut below the window kept from before is refused the same way.
    const cut = await call(settingsRoute.PUT, "PUT", {}, { ...base, retentionDays: 20 });
    expect(cut.status).toBe(422);
    expect(JSON.stringify(cut.body)).toContain("archiveAfterDays");
    expect((await call(settingsRoute.PUT, "PUT", {}, { ...base, archiveAfterDays: 0 })).status).toBe(422);
    // Cleared: the deployment's default again.
    const cleared = await call(settingsRoute.PUT, "PUT", {}, { ...base, archiveAfterDays: null });
    expect(cleared.body.archiveAfterDays).toBeNull();
    const [after] = await app.db.select().from(tenant).where(eq(tenant.id, acme));
    expect(after!.archiveAfterDays).toBeNull();
  });

  it("keys, limits, settings and sign-in settings each leave one change row; tenants see only their own", async () => {
    await as("admin@acme.test", "acme");
    const seen = new Set((await app.db.select({ id: adminChange.id }).from(adminChange)).map((r) => r.id));
    const key = await call(keysRoute.POST, "POST", {}, { name: "audited" });
    await call(keyRoute.DELETE, "DELETE", { id: key.body.key.id });
    await call(limitsRoute.PUT, "PUT", {}, { scope: "tenant", requestsPerMinute: 100, dailyHardUsd: "5" });
    const settings = await call(settingsRoute.GET, "GET");
    await call(
      settingsRoute.PUT,
      "PUT",
      {},
      {
        retentionDays: 30,
        cacheAliases: [],
        cacheTtlSeconds: settings.body.cacheTtlSeconds,
      },
    );
    // Email domains are the platform's to grant: the tenant admin is refused, the super admin (in Acme) saves.
    const refused = await call(signInRoute.PUT, "PUT", {}, { ssoDomains: ["Acme.test"] });
    expect(refused.status).toBe(403);
    await as("root@tollgate.test", "acme");
    const badDomain = await call(signInRoute.PUT, "PUT", {}, { ssoDomains: ["not a domain"] });
    expect(badDomain.status).toBe(422);
    expect((await call(signInRoute.PUT, "PUT", {}, { ssoDomains: ["Acme.test"] })).status).toBe(200);
    await as("admin@acme.test", "acme");
    const rows = (await app.db.select().from(adminChange)).filter((r) => !seen.has(r.id));
    expect(rows.map((r) => r.action).sort()).toEqual([
      "api_key.created",
      "api_key.revoked",
      "limits.set",
      "sign_in_settings.updated",
      "tenant_settings.updated",
    ]);
    const limits = rows.find((r) => r.action === "limits.set")!;
    expect(limits).toMatchObject({ before: null, after: { requestsPerMinute: 100, dailyHardUsd: "5" } });
    // Tollgate mints its own request id (UUIDv7); the client's x-request-id is only logged beside it.
    expect(limits.requestId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(rows.find((r) => r.action === "tenant_settings.updated")).toMatchObject({
      before: { retentionDays: 90 },
      after: { retentionDays: 30 },
    });
    expect(JSON.stringify(rows)).not.toMatch(/tg_[A-Za-z0-9_-]{20}/);

    // The schema page: Acme's admin sees Acme's rows only; Globex's admin none of Acme's; root all.
    const page = async () =>
      (await schemaJson("admin-changes/rows?limit=200")).body.rows as { tenantId: string }[];
    const acmeRows = await page();
    expect(acmeRows.length).toBeGreaterThan(0);
    expect(acmeRows.every((r) => r.tenantId === acme)).toBe(true);
    await as("admin@globex.test", "globex");
    expect((await page()).every((r) => r.tenantId === globex)).toBe(true);
    await as("member@acme.test");
    const res = await schemaGet("admin-changes/rows");
    expect(res.status).toBe(403);
    await as("root@tollgate.test");
    const all = await page();
    expect(new Set(all.map((r) => r.tenantId)).size).toBeGreaterThan(1);
  });
});
