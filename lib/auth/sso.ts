import "server-only";
import { and, eq, sql } from "drizzle-orm";
import type { OIDCConfig, Provider } from "next-auth/providers";
import type { Database } from "@/db";
import { appUser, membership, tenant } from "@/db/schema";
import { recordChange } from "@/lib/changes/changes";
import { log } from "@/lib/core/log";
import { processSlot } from "@/lib/core/process-state";
import { findUserByEmail, mayEnter } from "./users";

export type SsoResult = { ok: true; userId: string } | { ok: false; reason: string };

/** Why a single sign-on was refused; the login page shows a message for each (`/login?error=<reason>`). */
export const SSO_REFUSALS = ["SsoEmailUnverified", "SsoRefused", "SsoUnknownUser"] as const;

export const SSO_PROVIDER_ID = "oidc";

type OidcClaims = { sub?: string; email?: string; email_verified?: boolean; name?: string };

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
  const warned = processSlot("sso.urlWarned", () => ({ once: false }));
  if (!process.env.AUTH_URL && !process.env.NEXTAUTH_URL && !warned.once) {
    warned.once = true;
    // Next.js hands route handlers http://localhost:<port>, so the redirect URI would not be the public one.
    log.warn(
      "single sign-on without AUTH_URL: the OIDC redirect URI is http://localhost:<port>/api/auth/callback/oidc; set AUTH_URL to Tollgate's public URL",
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

/** The name on the "Sign in with …" button, or null when single sign-on is not configured. */
export function ssoProviderName(): string | null {
  return ssoEnv()?.name ?? null;
}

function claimsOf(profile: unknown): OidcClaims {
  return profile && typeof profile === "object" ? (profile as OidcClaims) : {};
}

/**
 * Matches a provider's profile (the ID token's claims) to a Tollgate user by verified email. A user who may
 * enter is let in; anyone else joins, as a member, every enabled tenant that lists their email's domain in its
 * `ssoDomains` (created without a password if new, each join recorded in the admin-change log); otherwise refused.
 */
export async function resolveSsoSignIn(
  db: Database,
  input: { provider: string; profile: unknown },
): Promise<SsoResult> {
  const claims = claimsOf(input.profile);
  const email = typeof claims.email === "string" ? claims.email.trim() : "";
  const at = email.lastIndexOf("@");
  // Some providers (Entra ID) send no email_verified at all; OIDC_TRUST_EMAIL=1 vouches for their emails.
  const verified =
    claims.email_verified === true ||
    (process.env.OIDC_TRUST_EMAIL === "1" && claims.email_verified === undefined);
  if (!email || at < 1 || at === email.length - 1 || !verified) {
    return { ok: false, reason: "SsoEmailUnverified" };
  }
  const existing = await findUserByEmail(db, email);
  if (existing?.disabled) return { ok: false, reason: "SsoRefused" };
  if (existing && (await mayEnter(db, existing.id))) return { ok: true, userId: existing.id };

  const domain = email.slice(at + 1).toLowerCase();
  const tenants = await db
    .select({ id: tenant.id })
    .from(tenant)
    .where(
      and(
        eq(tenant.disabled, false),
        sql`exists (select 1 from jsonb_array_elements_text(${tenant.ssoDomains}) as d where lower(d) = ${domain})`,
      ),
    );
  if (tenants.length === 0) return { ok: false, reason: "SsoUnknownUser" };

  const name = (typeof claims.name === "string" && claims.name.trim()) || email;
  const userId = await db.transaction(async (tx) => {
    const lookup = async () =>
      (
        await tx
          .select({ id: appUser.id, email: appUser.email })
          .from(appUser)
          .where(eq(sql`lower(${appUser.email})`, email.toLowerCase()))
          .limit(1)
      )[0];
    let user = existing ?? (await lookup());
    if (!user) {
      // Two first sign-ins at once: the unique index on lower(email) lets one insert win, the other reads it.
      await tx
        .insert(appUser)
        .values({ email: email.toLowerCase(), name, passwordHash: null })
        .onConflictDoNothing();
      user = await lookup();
    }
    if (!user) throw new Error("single sign-on: the user could not be created");
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
    return user.id;
  });
  log.info({ userId, provider: input.provider, tenants: tenants.length }, "joined by email domain");
  // A membership of theirs may still be refused (e.g. the user was disabled meanwhile): ask again.
  return (await mayEnter(db, userId)) ? { ok: true, userId } : { ok: false, reason: "SsoRefused" };
}
