import { type Browser, expect, type Page, test } from "@playwright/test";
import { LoginPage, signInAs } from "./pages";
import { expectSignedIn, grantSsoDomains, me, signInWithSso } from "./sso-flow";

// The review's cross-tenant account takeover, in browsers against the production build: Acme's admin invites an
// address at another company, accepts the invitation with a password of their choosing, keeps the session,
// removes the membership and waits for the real person's first single sign-on (see
// tests/security/account-takeover.test.ts for the same attack in-process).

const BASE = `http://localhost:${process.env.E2E_PORT ?? "3100"}`;
test.use({ baseURL: BASE });

const VICTIM = "victim@corp-e2e.test";
const PASSWORD = "attacker-chosen-password";

async function contextPage(browser: Browser): Promise<Page> {
  return (await browser.newContext({ baseURL: BASE })).newPage();
}

test("an account an admin made from an invitation is lost to them when its owner signs in by SSO", async ({
  browser,
}) => {
  // Acme's admin: the sign-in settings are read-only for them, and claiming the victim's domain is refused.
  const attacker = await contextPage(browser);
  await signInAs(attacker, "admin@acme.test");
  await attacker.goto("/dev/admin/members");
  await expect(attacker.getByTestId("sso-domains-granted")).toContainText(
    "The platform admin grants these domains",
  );
  await expect(attacker.getByTestId("field-ssoDomains")).toHaveCount(0);
  const claim = await attacker.request.put("/api/admin/sign-in-settings", {
    data: { ssoDomains: ["corp-e2e.test"] },
  });
  expect(claim.status()).toBe(403);

  // The invitation link goes to the attacker, who accepts it with their own password and is signed in as the victim.
  const invited = await attacker.request.post("/api/admin/invitations", { data: { email: VICTIM } });
  expect(invited.status(), await invited.text()).toBe(201);
  const { link } = (await invited.json()) as { link: string };
  const squatter = await contextPage(browser);
  await squatter.goto(new URL(link).pathname);
  const form = squatter.getByTestId("accept-form");
  await form.getByTestId("field-name").fill("Victim");
  await form.getByTestId("field-password").fill(PASSWORD);
  await form.getByTestId("field-confirmPassword").fill(PASSWORD);
  await form.getByTestId("accept-submit").click();
  await expectSignedIn(squatter);
  const planted = await me(squatter);
  expect(planted.tenant?.name).toBe("Acme");

  // The membership goes, the account stays (with the attacker's password and session).
  const removed = await attacker.request.delete(`/api/admin/members/${planted.user.id}`);
  expect(removed.status(), await removed.text()).toBe(200);

  // The platform admin grants corp-e2e.test to Globex, where the victim works.
  const root = await contextPage(browser);
  await signInAs(root, "root@tollgate.test");
  await grantSsoDomains(root, "Globex", ["corp-e2e.test"]);
  try {
    const victim = await contextPage(browser);
    await signInWithSso(victim, VICTIM);
    await expectSignedIn(victim);
    const who = await me(victim);
    expect(who.user.id).toBe(planted.user.id);
    expect(who.tenants.map((t) => t.name)).toEqual(["Globex"]);

    // The session the attacker kept is over, and their password no longer signs in.
    expect((await squatter.request.get("/api/me")).status()).toBe(401);
    const retry = await contextPage(browser);
    const login = new LoginPage(retry);
    await login.goto();
    await login.signIn(VICTIM, PASSWORD);
    await expect(login.error()).toBeVisible();
    expect((await retry.request.get("/api/me")).status()).toBe(401);
  } finally {
    await grantSsoDomains(root, "Globex", []);
  }
});
