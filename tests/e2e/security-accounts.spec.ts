import { type APIRequestContext, expect, request, test } from "@playwright/test";
import { grantSsoDomains, signInWithSsoOverHttp } from "./sso-flow";

// The review's cross-tenant account takeover, over HTTP against the production build (request contexts are the
// browsers: each keeps its own cookies): Acme's admin invites an address at another company, accepts the invitation
// with a password of their choosing, keeps the session, removes the membership and waits for the real person's
// first single sign-on. tests/security/account-takeover.test.ts runs the same attack in-process.

// On localhost: that is the origin next-auth's redirect URI and cookies are on (see sso.spec.ts).
const BASE = `http://localhost:${process.env.E2E_PORT ?? "3100"}`;
const VICTIM = "victim@corp-e2e.test";
const PASSWORD = "attacker-chosen-password";

const clients: APIRequestContext[] = [];
/** A browser of its own; state-changing calls carry the Origin the app's own pages would. */
async function client(): Promise<APIRequestContext> {
  const c = await request.newContext({ baseURL: BASE, extraHTTPHeaders: { origin: BASE } });
  clients.push(c);
  return c;
}
const signIn = (c: APIRequestContext, email: string, password = "tollgate-demo") =>
  c.post("/api/login", { data: { email, password } });

test.afterAll(async () => {
  for (const c of clients) await c.dispose();
});

test("an account an admin made from an invitation is lost to them when its owner signs in by SSO", async () => {
  // Acme's admin cannot hand the victim's domain to Acme: the platform admin grants domains.
  const attacker = await client();
  expect((await signIn(attacker, "admin@acme.test")).status()).toBe(200);
  const settings = await attacker.get("/api/admin/sign-in-settings");
  expect(await settings.json()).toMatchObject({ canEdit: false });
  const claim = await attacker.put("/api/admin/sign-in-settings", {
    data: { ssoDomains: ["corp-e2e.test"] },
  });
  expect(claim.status()).toBe(403);
  expect((await claim.json()).error.message).toContain("granted by the platform admin");

  // The invitation link goes to the attacker, who accepts it with their own password and signs in as the victim.
  const invited = await attacker.post("/api/admin/invitations", { data: { email: VICTIM } });
  expect(invited.status(), await invited.text()).toBe(201);
  const token = new URL(((await invited.json()) as { link: string }).link).pathname.split("/invite/")[1];
  const squatter = await client();
  const accepted = await squatter.post(`/api/invitations/${token}/accept`, {
    data: { name: "Victim", password: PASSWORD },
  });
  expect(accepted.status(), await accepted.text()).toBe(200);
  expect((await signIn(squatter, VICTIM, PASSWORD)).status()).toBe(200);
  const planted = (await (await squatter.get("/api/me")).json()) as {
    user: { id: string };
    tenant: { name: string };
  };
  expect(planted.tenant.name).toBe("Acme");

  // The membership goes; the account stays, with the attacker's password and session.
  const removed = await attacker.delete(`/api/admin/members/${planted.user.id}`);
  expect(removed.status(), await removed.text()).toBe(200);

  // The platform admin grants corp-e2e.test to Globex, where the victim works; Acme cannot have it too.
  const root = await client();
  expect((await signIn(root, "root@tollgate.test")).status()).toBe(200);
  await grantSsoDomains(root, "Globex", ["corp-e2e.test"]);
  try {
    await root.post("/api/session/tenant", { data: { tenantId: null } });
    const acmeRoot = await client();
    expect((await signIn(acmeRoot, "root@tollgate.test")).status()).toBe(200);
    const { tenants } = (await (await acmeRoot.get("/api/admin/tenants")).json()) as {
      tenants: { id: string; name: string }[];
    };
    await acmeRoot.post("/api/session/tenant", {
      data: { tenantId: tenants.find((t) => t.name === "Acme")!.id },
    });
    const second = await acmeRoot.put("/api/admin/sign-in-settings", {
      data: { ssoDomains: ["corp-e2e.test"] },
    });
    expect(second.status()).toBe(409);
    expect((await second.json()).error.message).toContain("corp-e2e.test");

    // The victim's first single sign-on: their own account now, in Globex only.
    const victim = await client();
    expect((await signInWithSsoOverHttp(victim, BASE, VICTIM)).pathname).toBe("/");
    const who = (await (await victim.get("/api/me")).json()) as {
      user: { id: string; email: string };
      tenants: { name: string }[];
    };
    expect(who.user).toMatchObject({ id: planted.user.id, email: VICTIM });
    expect(who.tenants.map((t) => t.name)).toEqual(["Globex"]);

    // The session the attacker kept is over, and their password no longer signs in.
    expect((await squatter.get("/api/me")).status()).toBe(401);
    const retry = await client();
    expect((await signIn(retry, VICTIM, PASSWORD)).status()).toBe(401);
    expect((await retry.get("/api/me")).status()).toBe(401);
  } finally {
    await grantSsoDomains(root, "Globex", []);
  }
});
