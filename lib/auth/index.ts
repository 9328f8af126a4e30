import NextAuth, { type DefaultSession } from "next-auth";
import Credentials from "next-auth/providers/credentials";
import { z } from "zod";
import { getDb } from "@/db";
import { log } from "@/lib/log";
import { verifyPassword } from "./password";
import { getAuthSecret } from "./secret";
import { clearSignInFailures, clientAddress, recordSignInFailure } from "./throttle";
import { findUserByEmail, loadUserContext } from "./users";

declare module "next-auth" {
  interface Session {
    user: { id: string; isSuperAdmin: boolean } & DefaultSession["user"];
    tenantId: string | null;
    role: "member" | "admin" | null;
  }
}

declare module "@auth/core/jwt" {
  interface JWT {
    tenantId?: string | null;
    role?: "member" | "admin" | null;
    isSuperAdmin?: boolean;
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
  pages: { signIn: "/login" },
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
        if (!user || !ok || user.disabled) {
          await recordSignInFailure(db, { email, address: clientAddress(request.headers) });
          return null;
        }
        await clearSignInFailures(db, email);
        return { id: user.id, email: user.email, name: user.name };
      },
    }),
  ],
  callbacks: {
    async jwt({ token, user, trigger, session }) {
      if (user?.id) {
        const ctx = await loadUserContext(await getDb(), user.id, null);
        token.sub = user.id;
        token.tenantId = ctx?.tenant?.id ?? null;
        token.role = ctx?.role ?? null;
        token.isSuperAdmin = ctx?.user.isSuperAdmin ?? false;
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
      return session;
    },
  },
});
