import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  adminChange,
  appUser,
  authSession,
  membership,
  tenant,
  tenantSsoDomain,
  userIdentity,
} from "@/db/schema";
import { openSession } from "@/lib/auth/sessions";
import { resolveSsoSignIn } from "@/lib/auth/sso";
import { loadUserContext } from "@/lib/auth/users";
import { useSeededAppDatabase } from "../helpers/app-db";
import { testDbKinds } from "../helpers/db";

const ISSUER = "https://idp.test";
const profile = (email: string | undefined, extra: Record<string, unknown> = {}) => ({
  provider: "oidc",
  issuer: ISSUER,
  // A provider's subject is stable; the email's case may vary from one sign-in to the next.
  profile: { sub: email?.toLowerCase() ?? "someone", email, email_verified: true, ...extra },
});

describe.each(testDbKinds)("single sign-on matching on %s", (kind) => {
  let app: Awaited<ReturnType<typeof useSeededAppDatabase>>;
  const setDomains = async (slug: string, ssoDomains: string[]) => {
    const tenantId = await app.tenantId(slug);
    await app.db.delete(tenantSsoDomain).where(eq(tenantSsoDomain.tenantId, tenantId));
    if (ssoDomains.length)
      await app.db.insert(tenantSsoDomain).values(ssoDomains.map((domain) => ({ domain, tenantId })));
  };
  const setTenantDisabled = async (slug: string, disabled: boolean) => {
    await app.db.update(tenant).set({ disabled }).where(eq(tenant.slug, slug));
  };
  const userByEmail = async (email: string) =>
    (await app.db.select().from(appUser).where(eq(appUser.email, email)))[0];
  const membershipsOf = async (userId: string) =>
    app.db
      .select({ slug: tenant.slug, role: membership.role })
      .from(membership)
      .innerJoin(tenant, eq(tenant.id, membership.tenantId))
      .where(eq(membership.userId, userId))
      .orderBy(tenant.slug);
  const joinsOf = async (userId: string) =>
    app.db
      .select()
      .from(adminChange)
      .where(and(eq(adminChange.objectId, userId), eq(adminChange.action, "member.joined_by_domain")));

  beforeAll(async () => {
    app = await useSeededAppDatabase(kind);
  });
  afterAll(async () => {
    await app.close();
  });

  it("maps a verified email to the existing user, whatever its case", async () => {
    expect(await resolveSsoSignIn(app.db, profile("Admin@ACME.test"))).toEqual({
      ok: true,
      userId: await app.userId("admin@acme.test"),
    });
    expect(await resolveSsoSignIn(app.db, profile("member@globex.test"))).toEqual({
      ok: true,
      userId: await app.userId("member@globex.test"),
    });
    expect(await resolveSsoSignIn(app.db, profile("root@tollgate.test"))).toEqual({
      ok: true,
      userId: await app.userId("root@tollgate.test"),
    });
  });

  it("refuses an email that is missing or not verified", async () => {
    for (const input of [
      profile("admin@acme.test", { email_verified: false }),
      profile("admin@acme.test", { email_verified: "true" }),
      profile("admin@acme.test", { email_verified: undefined }),
      profile(undefined),
      profile("not-an-email"),
      { provider: "oidc", issuer: ISSUER, profile: null },
    ]) {
      expect(await resolveSsoSignIn(app.db, input)).toEqual({ ok: false, reason: "SsoEmailUnverified" });
    }
  });

  it("with OIDC_TRUST_EMAIL=1 accepts an email sent without email_verified, never one marked unverified", async () => {
    process.env.OIDC_TRUST_EMAIL = "1";
    try {
      expect(
        await resolveSsoSignIn(app.db, profile("admin@acme.test", { email_verified: undefined })),
      ).toEqual({
        ok: true,
        userId: await app.userId("admin@acme.test"),
      });
      expect(await resolveSsoSignIn(app.db, profile("admin@acme.test", { email_verified: false }))).toEqual({
        ok: false,
        reason: "SsoEmailUnverified",
      });
    } finally {
      delete process.env.OIDC_TRUST_EMAIL;
    }
  });

  it("refuses an unknown email when no tenant lets its domain join, and creates nobody", async () => {
    expect(await resolveSsoSignIn(app.db, profile("stranger@nowhere.test"))).toEqual({
      ok: false,
      reason: "SsoUnknownUser",
    });
    expect(await userByEmail("stranger@nowhere.test")).toBeUndefined();
  });

  it("refuses a disabled user, even at a domain that may join", async () => {
    await setDomains("acme", ["globex.test"]);
    await app.db.update(appUser).set({ disabled: true }).where(eq(appUser.email, "member@globex.test"));
    try {
      expect(await resolveSsoSignIn(app.db, profile("member@globex.test"))).toEqual({
        ok: false,
        reason: "SsoRefused",
      });
      expect(await membershipsOf(await app.userId("member@globex.test"))).toEqual([
        { slug: "globex", role: "member" },
      ]);
    } finally {
      await app.db.update(appUser).set({ disabled: false }).where(eq(appUser.email, "member@globex.test"));
      await setDomains("acme", []);
    }
  });

  it("joins a new email as a member of the enabled tenant that holds its domain, and records it", async () => {
    await setDomains("acme", ["joiners.test", "other.test"]);
    await setTenantDisabled("globex", true);
    try {
      const result = await resolveSsoSignIn(
        app.db,
        profile("New.Person@Joiners.TEST", { name: "New Person" }),
      );
      expect(result.ok).toBe(true);
      const user = (await userByEmail("new.person@joiners.test"))!;
      expect(result).toEqual({ ok: true, userId: user.id });
      expect(user).toMatchObject({
        name: "New Person",
        passwordHash: null,
        isSuperAdmin: false,
        disabled: false,
      });
      expect(await membershipsOf(user.id)).toEqual([{ slug: "acme", role: "member" }]);

      const joins = await joinsOf(user.id);
      expect(joins).toHaveLength(1);
      expect(joins[0]).toMatchObject({
        tenantId: await app.tenantId("acme"),
        actorId: user.id,
        actorEmail: "new.person@joiners.test",
        action: "member.joined_by_domain",
        objectType: "member",
        objectId: user.id,
        before: null,
        after: { email: "new.person@joiners.test", role: "member", via: "sso" },
      });

      // The next sign-in finds the user: no second join.
      expect(await resolveSsoSignIn(app.db, profile("new.person@joiners.test"))).toEqual({
        ok: true,
        userId: user.id,
      });
      expect(await joinsOf(user.id)).toHaveLength(1);
    } finally {
      await setTenantDisabled("globex", false);
      await setDomains("acme", []);
      await setDomains("globex", []);
    }
  });

  it("a domain belongs to one tenant: a second tenant cannot hold it, and the joiner is named by the email", async () => {
    await setDomains("acme", ["both.test"]);
    await expect(setDomains("globex", ["both.test"])).rejects.toThrow();
    try {
      const result = await resolveSsoSignIn(app.db, profile("two@both.test"));
      const user = (await userByEmail("two@both.test"))!;
      expect(result).toEqual({ ok: true, userId: user.id });
      expect(user.name).toBe("two@both.test");
      expect(await membershipsOf(user.id)).toEqual([{ slug: "acme", role: "member" }]);
      const joins = await joinsOf(user.id);
      expect(joins.map((j) => j.tenantId)).toEqual([await app.tenantId("acme")]);
    } finally {
      await setDomains("acme", []);
      await setDomains("globex", []);
    }
  });

  it("joins once when the same new email signs in twice at the same moment", async () => {
    await setDomains("acme", ["race.test"]);
    try {
      const results = await Promise.all([
        resolveSsoSignIn(app.db, profile("racer@race.test")),
        resolveSsoSignIn(app.db, profile("racer@race.test")),
      ]);
      const user = (await userByEmail("racer@race.test"))!;
      expect(results).toEqual([
        { ok: true, userId: user.id },
        { ok: true, userId: user.id },
      ]);
      expect(await membershipsOf(user.id)).toEqual([{ slug: "acme", role: "member" }]);
      expect(await joinsOf(user.id)).toHaveLength(1);
    } finally {
      await setDomains("acme", []);
    }
  });

  it("matches the domain exactly: no subdomains, no look-alikes, nothing in a disabled tenant alone", async () => {
    await setDomains("acme", ["exact.test"]);
    await setDomains("globex", ["disabled-only.test"]);
    await setTenantDisabled("globex", true);
    try {
      for (const email of [
        "a@sub.exact.test",
        "a@notexact.test",
        "a@exact.test.evil",
        "a@disabled-only.test",
      ]) {
        expect(await resolveSsoSignIn(app.db, profile(email))).toEqual({
          ok: false,
          reason: "SsoUnknownUser",
        });
        expect(await userByEmail(email)).toBeUndefined();
      }
    } finally {
      await setTenantDisabled("globex", false);
      await setDomains("acme", []);
      await setDomains("globex", []);
    }
  });

  it("lets an existing user with no way in join by domain, clearing the password set before", async () => {
    const [lonely] = await app.db
      .insert(appUser)
      .values({ email: "lonely@later.test", name: "Lonely", passwordHash: "kept-hash" })
      .returning();
    expect(await resolveSsoSignIn(app.db, profile("lonely@later.test"))).toEqual({
      ok: false,
      reason: "SsoUnknownUser",
    });
    await setDomains("globex", ["later.test"]);
    try {
      expect(await resolveSsoSignIn(app.db, profile("lonely@later.test"))).toEqual({
        ok: true,
        userId: lonely!.id,
      });
      expect(await membershipsOf(lonely!.id)).toEqual([{ slug: "globex", role: "member" }]);
      // Whoever set that password need not have owned the email: it goes, the identity provider vouches now.
      expect((await userByEmail("lonely@later.test"))!.passwordHash).toBeNull();
      expect(await joinsOf(lonely!.id)).toHaveLength(1);
    } finally {
      await setDomains("globex", []);
    }
  });

  it("never changes an existing member's role", async () => {
    await setDomains("acme", ["acme.test"]);
    try {
      expect(await resolveSsoSignIn(app.db, profile("admin@acme.test"))).toEqual({
        ok: true,
        userId: await app.userId("admin@acme.test"),
      });
      expect(await membershipsOf(await app.userId("admin@acme.test"))).toEqual([
        { slug: "acme", role: "admin" },
      ]);
      expect(await joinsOf(await app.userId("admin@acme.test"))).toHaveLength(0);
    } finally {
      await setDomains("acme", []);
    }
  });
  it("links by the issuer's sub: the same email from another sub is refused, a changed email with the sub is not", async () => {
    await setDomains("acme", ["subs.test"]);
    try {
      const first = await resolveSsoSignIn(app.db, profile("pat@subs.test", { sub: "sub-pat" }));
      const pat = (await userByEmail("pat@subs.test"))!;
      expect(first).toEqual({ ok: true, userId: pat.id });
      expect(await app.db.select().from(userIdentity).where(eq(userIdentity.userId, pat.id))).toEqual([
        expect.objectContaining({ issuer: ISSUER, subject: "sub-pat" }),
      ]);
      // Another subject of the same provider asserting pat's email (a multi-tenant provider) is someone else.
      expect(await resolveSsoSignIn(app.db, profile("pat@subs.test", { sub: "sub-mallory" }))).toEqual({
        ok: false,
        reason: "SsoIdentityMismatch",
      });
      // pat's email changed at the provider: the subject still finds pat, and nobody new is made.
      expect(await resolveSsoSignIn(app.db, profile("pat.renamed@subs.test", { sub: "sub-pat" }))).toEqual({
        ok: true,
        userId: pat.id,
      });
      expect(await userByEmail("pat.renamed@subs.test")).toBeUndefined();
      // The issuer is part of the identity: the ID token's iss wins over the configured fallback.
      expect(
        await resolveSsoSignIn(
          app.db,
          profile("pat@subs.test", { sub: "sub-pat", iss: "https://other.test" }),
        ),
      ).toEqual({ ok: true, userId: pat.id });
      expect(
        (await app.db.select().from(userIdentity).where(eq(userIdentity.userId, pat.id)))
          .map((i) => i.issuer)
          .sort(),
      ).toEqual([ISSUER, "https://other.test"]);
    } finally {
      await setDomains("acme", []);
    }
  });

  it("adopting a password account by email clears the password, ends its sessions and records it", async () => {
    const email = "kept@acme.test";
    const [user] = await app.db
      .insert(appUser)
      .values({ email, name: "Kept", passwordHash: "some-hash", emailVerified: false })
      .returning();
    await app.db.insert(membership).values({ tenantId: await app.tenantId("acme"), userId: user!.id });
    const sid = await openSession(app.db, { userId: user!.id, maxAgeSeconds: 3600 });
    expect(await resolveSsoSignIn(app.db, profile(email, { sub: "sub-kept" }))).toEqual({
      ok: true,
      userId: user!.id,
    });
    const after = (await userByEmail(email))!;
    expect(after).toMatchObject({
      passwordHash: null,
      emailVerified: true,
      sessionEpoch: user!.sessionEpoch + 1,
    });
    expect(await loadUserContext(app.db, user!.id, null, user!.sessionEpoch)).toBeNull();
    const [row] = await app.db.select().from(authSession).where(eq(authSession.id, sid));
    expect(row!.revokedAt).not.toBeNull();
    const linked = await app.db
      .select()
      .from(adminChange)
      .where(and(eq(adminChange.objectId, user!.id), eq(adminChange.action, "member.sso_linked")));
    expect(linked).toEqual([
      expect.objectContaining({
        tenantId: await app.tenantId("acme"),
        before: { email, passwordSet: true, emailVerified: false },
        after: { email, issuer: ISSUER, subject: "sub-kept", passwordCleared: true, sessionsEnded: true },
      }),
    ]);
    // Signing in again by the same identity adopts nothing more.
    expect(await resolveSsoSignIn(app.db, profile(email, { sub: "sub-kept" }))).toEqual({
      ok: true,
      userId: user!.id,
    });
    expect((await userByEmail(email))!.sessionEpoch).toBe(after.sessionEpoch);
  });

  it("does not adopt (or clear) an account that single sign-on would refuse anyway", async () => {
    const [user] = await app.db
      .insert(appUser)
      .values({ email: "nowhere@unlisted.test", name: "Nowhere", passwordHash: "stays" })
      .returning();
    expect(await resolveSsoSignIn(app.db, profile("nowhere@unlisted.test"))).toEqual({
      ok: false,
      reason: "SsoUnknownUser",
    });
    expect((await userByEmail("nowhere@unlisted.test"))!.passwordHash).toBe("stays");
    expect(await app.db.select().from(userIdentity).where(eq(userIdentity.userId, user!.id))).toEqual([]);
  });

  it("marks a new account verified only when the provider verified the email", async () => {
    await setDomains("globex", ["fresh.test"]);
    process.env.OIDC_TRUST_EMAIL = "1";
    try {
      await resolveSsoSignIn(app.db, profile("checked@fresh.test"));
      await resolveSsoSignIn(app.db, profile("trusted@fresh.test", { email_verified: undefined }));
      expect((await userByEmail("checked@fresh.test"))!.emailVerified).toBe(true);
      expect((await userByEmail("trusted@fresh.test"))!.emailVerified).toBe(false);
    } finally {
      delete process.env.OIDC_TRUST_EMAIL;
      await setDomains("globex", []);
    }
  });

  it("OIDC_TRUST_EMAIL=1 never lets a trusted-but-unverified email into a super admin", async () => {
    const root = await userByEmail("root@tollgate.test");
    process.env.OIDC_TRUST_EMAIL = "1";
    try {
      // By email (a fresh subject) and by a subject already linked to the super admin: both refused.
      for (const sub of ["sub-root-new", "root@tollgate.test"]) {
        expect(
          await resolveSsoSignIn(app.db, profile("root@tollgate.test", { sub, email_verified: undefined })),
        ).toEqual({ ok: false, reason: "SsoSuperAdminUnverified" });
      }
      expect(
        await app.db.select().from(userIdentity).where(eq(userIdentity.subject, "sub-root-new")),
      ).toEqual([]);
      expect((await userByEmail("root@tollgate.test"))!.sessionEpoch).toBe(root!.sessionEpoch);
    } finally {
      delete process.env.OIDC_TRUST_EMAIL;
    }
  });
});
