// The cross-tenant account takeover from the security review, end to end: next-auth's own handlers (credentials
// and OpenID Connect) run in-process against a real OIDC provider (tests/fakes/oidc.ts), and the app's routes read
// the session from the cookies a browser would hold.
//
// The attack: Acme's admin invites victim@corp.test, opens the link and sets a password, removes the membership,
// and waits. Before the fix, the victim's first single sign-on adopted that account by email (keeping the
// attacker's password and sessions), and any tenant admin could claim corp.test so that sign-in joined their tenant.
import { and, eq } from "drizzle-orm";
import { NextRequest } from "next/server";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { adminChange, appUser } from "@/db/schema";
import { saveSignInSettings } from "@/features/tenants/server/tenants";
import { type FakeOidc, startFakeOidc } from "../fakes/oidc";
import { useSeededAppDatabase } from "../helpers/app-db";
import { testDbKinds } from "../helpers/db";

const APP = "http://app.test";
// next-auth reads its providers when lib/auth is first imported, so single sign-on is configured before that.
const env = vi.hoisted(() => {
  const port = 41_000 + Math.floor(Math.random() * 8_000);
  Object.assign(process.env, {
    AUTH_URL: "http://app.test",
    AUTH_SECRET: "account-takeover-test-secret-0123456789abcdef",
    OIDC_ISSUER: `http://127.0.0.1:${port}`,
    OIDC_CLIENT_ID: "tollgate-takeover",
    OIDC_CLIENT_SECRET: "tollgate-takeover-secret-0123456789",
    OIDC_NAME: "Test SSO",
  });
  return { port, cookie: "" };
});
// The request the app is handling: the cookies of whichever browser the test is acting as.
vi.mock("next/headers", () => ({
  headers: async () => new Headers({ cookie: env.cookie, "user-agent": "vitest" }),
  cookies: async () => ({ get: () => undefined, getAll: () => [], set: () => {}, delete: () => {} }),
}));

const { handlers } = await import("@/lib/auth");
const meRoute = await import("@/app/api/me/route");
const invitationsRoute = await import("@/app/api/admin/invitations/route");
const memberRoute = await import("@/app/api/admin/members/[userId]/route");
const acceptRoute = await import("@/app/api/invitations/[token]/accept/route");
const signInRoute = await import("@/app/api/admin/sign-in-settings/route");

/** One browser's cookies, for one host. */
class Jar {
  private cookies = new Map<string, string>();
  take(res: Response) {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const at = pair!.indexOf("=");
      const name = pair!.slice(0, at).trim();
      const value = pair!.slice(at + 1).trim();
      if (/expires=Thu, 01 Jan 1970/i.test(line) || /max-age=0/i.test(line) || value === "")
        this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
  header() {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }
}

/** A browser: cookies for Tollgate and for the identity provider. */
type Browser = { app: Jar; idp: Jar };
const browser = (): Browser => ({ app: new Jar(), idp: new Jar() });

/** next-auth's endpoint under /api/auth, as a browser calls it (no redirects followed). */
async function authCall(b: Browser, path: string, form?: Record<string, string>) {
  env.cookie = b.app.header();
  const req = new NextRequest(`${APP}/api/auth/${path}`, {
    method: form ? "POST" : "GET",
    headers: {
      cookie: b.app.header(),
      ...(form ? { "content-type": "application/x-www-form-urlencoded", origin: APP } : {}),
    },
    body: form ? new URLSearchParams(form) : undefined,
  });
  const res = await (form ? handlers.POST : handlers.GET)(req);
  b.app.take(res);
  return res;
}

async function csrf(b: Browser) {
  return ((await (await authCall(b, "csrf")).json()) as { csrfToken: string }).csrfToken;
}

/** The password form; returns where next-auth sends the browser (an error names itself in the URL). */
async function signInWithPassword(b: Browser, email: string, password: string) {
  const res = await authCall(b, "callback/credentials", {
    csrfToken: await csrf(b),
    email,
    password,
    callbackUrl: `${APP}/`,
  });
  return new URL(res.headers.get("location") ?? "", APP);
}

async function idpStep(b: Browser, url: string, form?: Record<string, string>) {
  const res = await fetch(url, {
    method: form ? "POST" : "GET",
    redirect: "manual",
    headers: {
      cookie: b.idp.header(),
      ...(form ? { "content-type": "application/x-www-form-urlencoded" } : {}),
    },
    body: form ? new URLSearchParams(form) : undefined,
  });
  b.idp.take(res);
  return res;
}

/** "Sign in with Test SSO", the provider's login and consent pages, back to Tollgate's callback. */
async function signInWithSso(b: Browser, login: string) {
  const start = await authCall(b, "signin/oidc", { csrfToken: await csrf(b), callbackUrl: `${APP}/` });
  let location = start.headers.get("location") ?? "";
  expect(location.startsWith(oidc.issuer), location).toBe(true);
  let res = await idpStep(b, location);
  for (let hops = 0; hops < 12; hops++) {
    if (res.status >= 300 && res.status < 400) {
      location = new URL(res.headers.get("location")!, oidc.issuer).href;
      if (location.startsWith(`${APP}/api/auth/callback/oidc`)) {
        const back = await authCall(b, location.slice(`${APP}/api/auth/`.length));
        return new URL(back.headers.get("location") ?? "", APP);
      }
      res = await idpStep(b, location);
      continue;
    }
    const html = await res.text();
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
    if (!action) throw new Error(`no form at the provider: ${html.slice(0, 300)}`);
    const prompt = /name="prompt" value="(\w+)"/.exec(html)?.[1] ?? "";
    res = await idpStep(
      b,
      new URL(action, oidc.issuer).href,
      prompt === "login" ? { prompt, login, password: "anything" } : { prompt },
    );
  }
  throw new Error("the provider never sent the browser back to Tollgate");
}

type Handler<P> = (req: Request, segment: { params: Promise<P> }) => Promise<Response>;
/** One of the app's routes, called with this browser's cookies. */
async function appCall<P = Record<string, never>>(
  b: Browser,
  handler: Handler<P>,
  method: string,
  params: P = {} as P,
  body?: unknown,
) {
  env.cookie = b.app.header();
  const res = await handler(
    new Request(`${APP}/api/x`, {
      method,
      headers: { "content-type": "application/json", cookie: b.app.header() },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
    { params: Promise.resolve(params) },
  );
  return { status: res.status, body: await res.json() };
}

let oidc: FakeOidc;
beforeAll(async () => {
  oidc = await startFakeOidc({
    port: env.port,
    redirectUris: [`${APP}/api/auth/callback/oidc`],
    clientId: process.env.OIDC_CLIENT_ID,
    clientSecret: process.env.OIDC_CLIENT_SECRET,
  });
});
afterAll(async () => {
  await oidc?.close();
});

describe.each(testDbKinds)("cross-tenant account takeover on %s", (kind) => {
  let app: Awaited<ReturnType<typeof useSeededAppDatabase>>;
  beforeAll(async () => {
    app = await useSeededAppDatabase(kind);
  });
  afterAll(() => app.close());

  it("an admin who made the victim's account from an invitation loses it when the victim signs in by SSO", async () => {
    const VICTIM = "victim@corp.test";
    const PASSWORD = "attacker-chosen-password";

    // Acme's admin (the attacker) cannot hand corp.test's sign-ins to Acme: domains are the platform's.
    const attacker = browser();
    expect((await signInWithPassword(attacker, "admin@acme.test", "tollgate-demo")).pathname).toBe("/");
    const claim = await appCall(attacker, signInRoute.PUT, "PUT", {}, { ssoDomains: ["corp.test"] });
    expect(claim.status).toBe(403);
    expect(claim.body.error.message).toMatch(/platform admin/);

    // The attacker invites the victim's address, opens the link and sets a password: an unverified account.
    const invited = await appCall(attacker, invitationsRoute.POST, "POST", {}, { email: VICTIM });
    expect(invited.status).toBe(201);
    const token = new URL(invited.body.link).pathname.split("/invite/")[1]!;
    const accepted = await appCall(
      attacker,
      acceptRoute.POST,
      "POST",
      { token },
      { name: "V", password: PASSWORD },
    );
    expect(accepted.status).toBe(200);
    const [made] = await app.db.select().from(appUser).where(eq(appUser.email, VICTIM));
    expect(made!.emailVerified).toBe(false);

    // The attacker signs in as the victim (a session to keep), then removes the membership to hide the account.
    const squatter = browser();
    expect((await signInWithPassword(squatter, VICTIM, PASSWORD)).pathname).toBe("/");
    expect((await appCall(squatter, meRoute.GET, "GET")).body.tenant.name).toBe("Acme");
    const removed = await appCall(attacker, memberRoute.DELETE, "DELETE", { userId: made!.id });
    expect(removed.status).toBe(200);

    // The platform admin grants corp.test to Globex, where the victim works; Acme can no longer claim it.
    const root = { id: await app.userId("root@tollgate.test"), email: "root@tollgate.test" };
    await saveSignInSettings(app.db, root, await app.tenantId("globex"), { ssoDomains: ["corp.test"] });
    await expect(
      saveSignInSettings(app.db, root, await app.tenantId("acme"), { ssoDomains: ["corp.test"] }),
    ).rejects.toMatchObject({ status: 409, message: expect.stringContaining("corp.test") });

    // The victim signs in by single sign-on for the first time: into Globex only, on their own account now.
    const victim = browser();
    expect((await signInWithSso(victim, VICTIM)).pathname).toBe("/");
    const me = await appCall(victim, meRoute.GET, "GET");
    expect(me.status).toBe(200);
    expect(me.body.user.email).toBe(VICTIM);
    expect(me.body.tenants.map((t: { name: string }) => t.name)).toEqual(["Globex"]);

    // The attacker's password no longer signs in, and the session they kept is over.
    const retry = browser();
    const refused = await signInWithPassword(retry, VICTIM, PASSWORD);
    expect(refused.searchParams.get("error")).toBe("CredentialsSignin");
    expect((await appCall(retry, meRoute.GET, "GET")).status).toBe(401);
    expect((await appCall(squatter, meRoute.GET, "GET")).status).toBe(401);

    // Globex's change log says the account was linked and its password cleared.
    const [linked] = await app.db
      .select()
      .from(adminChange)
      .where(and(eq(adminChange.objectId, made!.id), eq(adminChange.action, "member.sso_linked")));
    expect(linked).toMatchObject({
      tenantId: await app.tenantId("globex"),
      after: {
        email: VICTIM,
        issuer: oidc.issuer,
        subject: VICTIM,
        passwordCleared: true,
        sessionsEnded: true,
      },
    });
  });
});
