import "server-only";
import { headers } from "next/headers";
import NextAuth, { type DefaultSession } from "next-auth";
import Credentials from "next-auth/providers/credentials";
import { z } from "zod";
import { getDb } from "@/db";
import { log } from "@/lib/core/process/log";
import { clientAddress } from "@/lib/http/client-address";
import { verifyEpochProof } from "./epoch";
import { verifyPassword } from "./password";
import { getAuthSecret } from "./secret";
import { openSession, revokeSession } from "./sessions";
import { resolveSsoSignIn, ssoIssuer, ssoProviders } from "./sso";
import { clearSignInFailures, recordSignInFailure } from "./throttle";
import { findUserByEmail, loadUserContext, mayEnter } from "./users";

declare module "next-auth" {
  interface Session {
    user: { id: string; isSuperAdmin: boolean } & DefaultSession["user"];
    tenantId: string | null;
    epoch: number;
    /** The server-side session (`auth_session`) this cookie belongs to; sign-out revokes it. */
    sessionId?: string;
    role: "member" | "admin" | null;
  }
}

declare module "@auth/core/jwt" {
  interface JWT {
    tenantId?: string | null;
    role?: "member" | "admin" | null;
    isSuperAdmin?: boolean;
    /** The user's session epoch when this session was issued; a raised epoch ends the session. */
    epoch?: number;
    /** The `auth_session` row minted at sign-in; a revoked or unknown one ends the session. */
    sid?: string;
  }
}

export const credentialsSchema = z.object({
  email: z.string().trim().email("enter an email address").max(320),
  password: z.string().min(1, "enter your password").max(200),
});

export const SESSION_MAX_AGE_SECONDS = 7 * 24 * 3600;

export const { handlers, auth, signIn, signOut, unstable_update } = NextAuth({
  secret: getAuthSecret(),
  trustHost: true,
  session: { strategy: "jwt", maxAge: SESSION_MAX_AGE_SECONDS },
  // next-auth's own errors (a refused or failed single sign-on) come back to the login page, which explains them.
  pages: { signIn: "/login", error: "/login" },
  logger: {
    error: (error) => {
      // A wrong password is not an error of ours; everything else goes to the JSON log.
      if ((error as { type?: string }).type !== "CredentialsSignin") log.error({ err: error }, "auth error");
    },
    warn: (code) => log.warn({ code }, "auth warning"),
  },
  providers: [
    Credentials({
      credentials: { email: { label: "Email" }, password: { label: "Password", type: "password" } },
      async authorize(raw, request) {
        const parsed = credentialsSchema.safeParse(raw);
        if (!parsed.success) return null;
        const { email, password } = parsed.data;
        const db = await getDb();
        const user = await findUserByEmail(db, email);
        const ok = await verifyPassword(password, user?.passwordHash);
        const keys = { email, address: clientAddress(request.headers) };
        if (!user || !ok || user.disabled) {
          await recordSignInFailure(db, keys);
          return null;
        }
        // Right password, but every tenant of theirs is disabled (or they belong to none): no way in.
        if (!(await mayEnter(db, user.id))) return null;
        await clearSignInFailures(db, keys);
        return { id: user.id, email: user.email, name: user.name };
      },
    }),
    ...ssoProviders(),
  ],
  callbacks: {
    async signIn({ user, account, profile }) {
      if (account?.type !== "oidc" && account?.type !== "oauth") return true;
      // The profile is the ID token's validated claims: `iss` and `sub` name the identity, ssoIssuer() if no `iss`.
      const result = await resolveSsoSignIn(await getDb(), {
        provider: account.provider,
        issuer: ssoIssuer() ?? "",
        profile,
      });
      if (!result.ok) return `/login?error=${result.reason}`;
      // The session names the Tollgate user, not the provider's subject (the jwt callback reads user.id).
      user.id = result.userId;
      return true;
    },
    async jwt({ token, user, trigger, session }) {
      if (user?.id) {
        const ctx = await loadUserContext(await getDb(), user.id, null);
        token.sub = user.id;
        token.tenantId = ctx?.tenant?.id ?? null;
        token.role = ctx?.role ?? null;
        token.isSuperAdmin = ctx?.user.isSuperAdmin ?? false;
        token.epoch = ctx?.user.sessionEpoch ?? 0;
        token.sid = await openSession(await getDb(), {
          userId: user.id,
          ...(await signInRequestInfo()),
          maxAgeSeconds: SESSION_MAX_AGE_SECONDS,
        });
      }
      // After "sign out other sessions" (or a password change) the server re-issues this session in the new
      // epoch with a proof only it can make: the update endpoint is reachable from the browser, so a bare
      // epoch sent there must not revive an old session.
      if (
        trigger === "update" &&
        token.sub &&
        session &&
        typeof session === "object" &&
        "epochProof" in session
      ) {
        const { epoch, epochProof } = session as { epoch?: unknown; epochProof?: unknown };
        if (
          typeof epoch === "number" &&
          typeof epochProof === "string" &&
          verifyEpochProof(token.sub, epoch, epochProof)
        )
          token.epoch = epoch;
      }
      if (
        trigger === "update" &&
        token.sub &&
        session &&
        typeof session === "object" &&
        "tenantId" in session
      ) {
        // The update endpoint is reachable by the browser, so the requested tenant is checked, never trusted.
        const requested = (session as { tenantId: unknown }).tenantId;
        const ctx = await loadUserContext(
          await getDb(),
          token.sub,
          typeof requested === "string" ? requested : null,
        );
        const granted = requested === null ? ctx?.user.isSuperAdmin : ctx?.tenant?.id === requested;
        if (ctx && granted) {
          token.tenantId = ctx.tenant?.id ?? null;
          token.role = ctx.role;
        }
      }
      return token;
    },
    session({ session, token }) {
      session.user.id = token.sub ?? "";
      session.user.isSuperAdmin = token.isSuperAdmin ?? false;
      session.tenantId = token.tenantId ?? null;
      session.role = token.role ?? null;
      session.epoch = token.epoch ?? 0;
      session.sessionId = token.sid;
      return session;
    },
  },
  events: {
    // next-auth's sign-out (its endpoint, or signOut() in the app's action) ends the session on the server too.
    async signOut(message) {
      const sid = "token" in message ? message.token?.sid : undefined;
      if (sid) await revokeSession(await getDb(), sid);
    },
  },
});

/** Who is signing in, for the session's row: the browser and the client's address, when there is a request. */
async function signInRequestInfo(): Promise<{ userAgent: string | null; ip: string | null }> {
  try {
    const h = await headers();
    return { userAgent: h.get("user-agent"), ip: clientAddress(h) };
  } catch {
    return { userAgent: null, ip: null };
  }
}
