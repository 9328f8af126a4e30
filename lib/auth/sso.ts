import "server-only";
import { and, eq, ne } from "drizzle-orm";
import type { OIDCConfig, Provider } from "next-auth/providers";
import type { Database, Executor } from "@/db";
import { type AppUser, appUser, membership, tenant, tenantSsoDomain, userIdentity } from "@/db/schema";
import { recordChange } from "@/lib/changes/changes";
import { log } from "@/lib/core/process/log";
import { processSlot } from "@/lib/core/process/process-state";
import { endAllSessions } from "./sessions";
import { findUserByEmail, mayEnter } from "./users";

export type SsoResult = { ok: true; userId: string } | { ok: false; reason: SsoRefusal };

/** Why a single sign-on was refused; the login page shows a message for each (`/login?error=<reason>`). */
export const SSO_REFUSALS = [
  "SsoEmailUnverified",
  "SsoRefused",
  "SsoUnknownUser",
  "SsoIdentityMismatch",
  "SsoSuperAdminUnverified",
] as const;
type SsoRefusal = (typeof SSO_REFUSALS)[number];

export const SSO_PROVIDER_ID = "oidc";

type OidcClaims = { iss?: string; sub?: string; email?: string; email_verified?: boolean; name?: string };

function ssoEnv() {
  const issuer = process.env.OIDC_ISSUER?.trim();
  if (!issuer) return null;
  return {
    issuer,
    clientId: process.env.OIDC_CLIENT_ID ?? "",
    clientSecret: process.env.OIDC_CLIENT_SECRET ?? "",
    name: process.env.OIDC_NAME?.trim() || "Single sign-on",
  };
}

/**
 * The single sign-on providers configured from the environment: one OpenID Connect provider (Keycloak, Entra ID,
 * Google, Okta…) when `OIDC_ISSUER` is set, with `OIDC_CLIENT_ID`, `OIDC_CLIENT_SECRET` and `OIDC_NAME`.
 */
export function ssoProviders(): Provider[] {
  const env = ssoEnv();
  if (!env) return [];
  const warned = processSlot("sso.urlWarned", () => ({ once: false, trust: false }));
  if (!process.env.AUTH_URL && !process.env.NEXTAUTH_URL && !warned.once) {
    warned.once = true;
    // Next.js hands route handlers http://localhost:<port>, so the redirect URI would not be the public one.
    log.warn(
      "single sign-on without AUTH_URL: the OIDC redirect URI is http://localhost:<port>/api/auth/callback/oidc; set AUTH_URL to Tollgate's public URL",
    );
  }
  if (process.env.OIDC_TRUST_EMAIL === "1" && !warned.trust) {
    warned.trust = true;
    log.warn(
      "OIDC_TRUST_EMAIL=1: emails without email_verified are taken as verified; unsafe with a multi-tenant identity provider (anyone there may claim any email), and never accepted for a super admin",
    );
  }
  const provider: OIDCConfig<OidcClaims> = {
    id: SSO_PROVIDER_ID,
    name: env.name,
    type: "oidc",
    issuer: env.issuer,
    clientId: env.clientId,
    clientSecret: env.clientSecret,
    checks: ["pkce", "state"],
    authorization: { params: { scope: "openid email profile" } },
  };
  return [provider];
}

/** The configured issuer, for a profile that does not name its own (the ID token's `iss` was checked against it). */
export function ssoIssuer(): string | null {
  return ssoEnv()?.issuer ?? null;
}

/** The name on the "Sign in with …" button, or null when single sign-on is not configured. */
export function ssoProviderName(): string | null {
  return ssoEnv()?.name ?? null;
}

function claimsOf(profile: unknown): OidcClaims {
  return profile && typeof profile === "object" ? (profile as OidcClaims) : {};
}

const refuse = (reason: SsoRefusal): SsoResult => ({ ok: false, reason });

/** Thrown inside the sign-in transaction to roll it back and refuse. */
class SsoRefusalError extends Error {
  constructor(readonly reason: SsoRefusal) {
    super(reason);
  }
}

async function userOfIdentity(db: Executor, issuer: string, subject: string): Promise<AppUser | undefined> {
  const [row] = await db
    .select({ user: appUser })
    .from(userIdentity)
    .innerJoin(appUser, eq(appUser.id, userIdentity.userId))
    .where(and(eq(userIdentity.issuer, issuer), eq(userIdentity.subject, subject)))
    .limit(1);
  return row?.user;
}

/** The enabled tenant that was granted this email domain, if any (a domain belongs to at most one tenant). */
async function tenantsOfDomain(db: Executor, domain: string) {
  return db
    .select({ id: tenant.id })
    .from(tenantSsoDomain)
    .innerJoin(tenant, eq(tenant.id, tenantSsoDomain.tenantId))
    .where(and(eq(tenant.disabled, false), eq(tenantSsoDomain.domain, domain)));
}

/**
 * Matches a provider's profile (the ID token's claims) to a Tollgate user. An identity already linked (issuer and
 * `sub`) finds its account whatever the email says now. Otherwise the verified email finds an account, which is
 * then linked to this identity: its password is cleared and its sessions end (whoever set that password need not
 * have owned the email), recorded in the admin-change log; an account linked to another `sub` of this issuer is
 * refused. A user who may enter is let in; anyone else joins, as a member, the enabled tenant the platform admin
 * granted their email's domain (created without a password if new, the join recorded); otherwise refused.
 * `OIDC_TRUST_EMAIL=1` (an email without `email_verified` is taken as verified) never lets anyone into a super
 * admin account.
 */
export async function resolveSsoSignIn(
  db: Database,
  input: { provider: string; issuer: string; profile: unknown },
): Promise<SsoResult> {
  const claims = claimsOf(input.profile);
  const issuer = typeof claims.iss === "string" && claims.iss ? claims.iss : input.issuer;
  const subject = typeof claims.sub === "string" ? claims.sub : "";
  const email = typeof claims.email === "string" ? claims.email.trim() : "";
  const at = email.lastIndexOf("@");
  const emailVerified = claims.email_verified === true;
  // Some providers (Entra ID) send no email_verified at all; OIDC_TRUST_EMAIL=1 vouches for their emails.
  const trusted = process.env.OIDC_TRUST_EMAIL === "1" && claims.email_verified === undefined;
  if (!email || at < 1 || at === email.length - 1 || !(emailVerified || trusted)) {
    return refuse("SsoEmailUnverified");
  }
  if (!issuer || !subject || subject.length > 255) return refuse("SsoRefused");

  const linked = await userOfIdentity(db, issuer, subject);
  const existing = linked ?? (await findUserByEmail(db, email));
  if (existing?.disabled) return refuse("SsoRefused");
  if (existing?.isSuperAdmin && !emailVerified) return refuse("SsoSuperAdminUnverified");
  if (existing && !linked) {
    const [other] = await db
      .select({ subject: userIdentity.subject })
      .from(userIdentity)
      .where(
        and(
          eq(userIdentity.userId, existing.id),
          eq(userIdentity.issuer, issuer),
          ne(userIdentity.subject, subject),
        ),
      )
      .limit(1);
    // The same email from another subject of the same provider is someone else (a multi-tenant provider). The
    // same subject here means a concurrent first sign-in of this identity linked it between the two reads above.
    if (other) return refuse("SsoIdentityMismatch");
  }
  const entersAlready = existing ? await mayEnter(db, existing.id) : false;
  if (linked && entersAlready) return { ok: true, userId: linked.id };

  const domain = email.slice(at + 1).toLowerCase();
  const tenants = entersAlready ? [] : await tenantsOfDomain(db, domain);
  // Nobody is linked (and no password cleared) for a sign-in that would be refused anyway.
  if (!entersAlready && tenants.length === 0) return refuse("SsoUnknownUser");

  const name = (typeof claims.name === "string" && claims.name.trim()) || email;
  let userId: string;
  try {
    userId = await db.transaction(async (tx) => {
      const lookup = async () => findUserByEmail(tx, email);
      let user = existing ?? (await lookup());
      let created = false;
      if (!user) {
        // Two first sign-ins at once: the unique index on lower(email) lets one insert win, the other reads it.
        created =
          (
            await tx
              .insert(appUser)
              .values({ email: email.toLowerCase(), name, passwordHash: null, emailVerified })
              .onConflictDoNothing()
              .returning({ id: appUser.id })
          ).length > 0;
        user = await lookup();
      }
      if (!user) throw new Error("single sign-on: the user could not be created");
      const adopted = linked
        ? null
        : await linkIdentity(tx, user, { issuer, subject, emailVerified, created });
      for (const t of tenants) {
        const joined = await tx
          .insert(membership)
          .values({ tenantId: t.id, userId: user.id, role: "member" })
          .onConflictDoNothing()
          .returning({ tenantId: membership.tenantId });
        if (joined.length === 0) continue;
        await recordChange(
          tx,
          { id: user.id, email: user.email },
          {
            tenantId: t.id,
            action: "member.joined_by_domain",
            objectType: "member",
            objectId: user.id,
            before: null,
            after: { email: user.email, role: "member", via: "sso" },
          },
        );
      }
      if (adopted) await recordAdoption(tx, user, { issuer, subject, ...adopted });
      return user.id;
    });
  } catch (error) {
    if (error instanceof SsoRefusalError) return refuse(error.reason);
    throw error;
  }
  if (tenants.length) log.info({ userId, provider: input.provider }, "joined by email domain");
  // A membership of theirs may still be refused (e.g. the user was disabled meanwhile): ask again.
  return (await mayEnter(db, userId)) ? { ok: true, userId } : refuse("SsoRefused");
}

/**
 * Links the identity to the account. An account found by email (not created just now) is adopted: its password
 * is cleared and every session of it ends, so whoever set that password before the email's owner arrived is out.
 * Returns what adoption did, or null when nothing was adopted.
 */
async function linkIdentity(
  tx: Executor,
  user: { id: string },
  identity: { issuer: string; subject: string; emailVerified: boolean; created: boolean },
): Promise<{ hadPassword: boolean; wasVerified: boolean } | null> {
  const inserted = await tx
    .insert(userIdentity)
    .values({ issuer: identity.issuer, subject: identity.subject, userId: user.id })
    .onConflictDoNothing()
    .returning({ userId: userIdentity.userId });
  if (inserted.length === 0) {
    // A concurrent sign-in of the same identity linked it first: that one adopted the account.
    const owner = await userOfIdentity(tx, identity.issuer, identity.subject);
    if (owner?.id !== user.id) throw new SsoRefusalError("SsoIdentityMismatch");
    return null;
  }
  const others = await tx
    .select({ subject: userIdentity.subject })
    .from(userIdentity)
    .where(and(eq(userIdentity.userId, user.id), eq(userIdentity.issuer, identity.issuer)));
  if (others.length > 1) throw new SsoRefusalError("SsoIdentityMismatch");
  if (identity.created) return null;
  const [before] = await tx
    .select({ passwordHash: appUser.passwordHash, emailVerified: appUser.emailVerified })
    .from(appUser)
    .where(eq(appUser.id, user.id))
    .for("update");
  await tx
    .update(appUser)
    .set({ passwordHash: null, emailVerified: identity.emailVerified || Boolean(before?.emailVerified) })
    .where(eq(appUser.id, user.id));
  await endAllSessions(tx, user.id);
  return { hadPassword: Boolean(before?.passwordHash), wasVerified: Boolean(before?.emailVerified) };
}

/** One admin-change row in each tenant the adopted account belongs to (none for a super admin without one). */
async function recordAdoption(
  tx: Executor,
  user: { id: string; email: string },
  adoption: { issuer: string; subject: string; hadPassword: boolean; wasVerified: boolean },
) {
  const tenants = await tx
    .select({ tenantId: membership.tenantId })
    .from(membership)
    .where(eq(membership.userId, user.id));
  for (const { tenantId } of tenants)
    await recordChange(
      tx,
      { id: user.id, email: user.email },
      {
        tenantId,
        action: "member.sso_linked",
        objectType: "member",
        objectId: user.id,
        before: { email: user.email, passwordSet: adoption.hadPassword, emailVerified: adoption.wasVerified },
        after: {
          email: user.email,
          issuer: adoption.issuer,
          subject: adoption.subject,
          passwordCleared: adoption.hadPassword,
          sessionsEnded: true,
        },
      },
    );
  log.info({ userId: user.id, tenants: tenants.length }, "single sign-on linked an existing account");
}
