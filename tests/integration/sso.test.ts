import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminChange, appUser, membership, tenant } from "@/db/schema";
import { resolveSsoSignIn } from "@/lib/auth/sso";
import { useSeededAppDatabase } from "../helpers/app-db";
import { testDbKinds } from "../helpers/db";

const profile = (email: string | undefined, extra: Record<string, unknown> = {}) => ({
  provider: "oidc",
  profile: { sub: email ?? "someone", email, email_verified: true, ...extra },
});

describe.each(testDbKinds)("single sign-on matching on %s", (kind) => {
  let app: Awaited<ReturnType<typeof useSeededAppDatabase>>;
  const setDomains = async (slug: string, ssoDomains: string[]) => {
    await app.db.update(tenant).set({ ssoDomains }).where(eq(tenant.slug, slug));
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
      { provider: "oidc", profile: null },
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

  it("joins a new email as a member of every enabled tenant that lists its domain, and records it", async () => {
    await setDomains("acme", ["joiners.test", "other.test"]);
    await setDomains("globex", ["joiners.test"]);
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

  it("joins every enabled tenant of the domain, one change row in each, named by the email without a name", async () => {
    await setDomains("acme", ["both.test"]);
    await setDomains("globex", ["both.test"]);
    try {
      const result = await resolveSsoSignIn(app.db, profile("two@both.test"));
      const user = (await userByEmail("two@both.test"))!;
      expect(result).toEqual({ ok: true, userId: user.id });
      expect(user.name).toBe("two@both.test");
      expect(await membershipsOf(user.id)).toEqual([
        { slug: "acme", role: "member" },
        { slug: "globex", role: "member" },
      ]);
      const joins = await joinsOf(user.id);
      expect(joins.map((j) => j.tenantId).sort()).toEqual(
        [await app.tenantId("acme"), await app.tenantId("globex")].sort(),
      );
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

  it("lets an existing user with no way in join by domain, keeping their password", async () => {
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
      expect((await userByEmail("lonely@later.test"))!.passwordHash).toBe("kept-hash");
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
});
