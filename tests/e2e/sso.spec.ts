import { type Browser, expect, type Page, test } from "@playwright/test";
import { LoginPage, signInAs } from "./pages";
import { expectSignedIn, grantSsoDomains, me, OIDC, signInWithSso, switchToTenant } from "./sso-flow";

// A first single sign-on links the provider's subject to a Tollgate account, and adopting an existing password
// account by email clears its password: so these tests sign in people single sign-on made (at domains the platform
// admin granted), never the demo accounts later specs sign in with by password.

// On localhost, not 127.0.0.1: Next.js gives next-auth's route handlers http://localhost:<port> as their URL (it
// rewrites loopback addresses), so that is where the redirect URI points and where next-auth's cookies must be.
// A deployment sets AUTH_URL to its public URL instead.
const BASE = `http://localhost:${process.env.E2E_PORT ?? "3100"}`;
test.use({ baseURL: BASE });

const UNKNOWN_MESSAGE =
  "No Tollgate account uses this email, and no tenant lets its domain join. Ask your admin for an invitation.";

const ACME_ADMIN = "ada@acme-sso.test";
const GLOBEX_MEMBER = "gus@globex-sso.test";

/** A signed-in super admin in a context of its own. */
async function rootPage(browser: Browser): Promise<Page> {
  const context = await browser.newContext({ baseURL: BASE });
  const root = await context.newPage();
  await signInAs(root, "root@tollgate.test");
  return root;
}

test.describe("single sign-on (OpenID Connect)", () => {
  test.beforeAll(async ({ browser }) => {
    // The platform admin lets two SSO-only domains join; Ada's first sign-in makes her account, then she is
    // made Acme's admin, so the tests below find an existing admin by the provider's subject.
    const root = await rootPage(browser);
    await grantSsoDomains(root.request, "Acme", ["acme-sso.test"]);
    await grantSsoDomains(root.request, "Globex", ["globex-sso.test"]);
    const page = await (await browser.newContext({ baseURL: BASE })).newPage();
    await signInWithSso(page, ACME_ADMIN);
    await expectSignedIn(page);
    const ada = await me(page);
    await page.context().close();
    await switchToTenant(root.request, "Acme");
    const promoted = await root.request.patch(`/api/admin/members/${ada.user.id}`, {
      data: { role: "admin" },
    });
    expect(promoted.status(), await promoted.text()).toBe(200);
    await root.context().close();
  });

  test.afterAll(async ({ browser }) => {
    const root = await rootPage(browser);
    await grantSsoDomains(root.request, "Acme", []);
    await grantSsoDomains(root.request, "Globex", []);
    await root.context().close();
  });

  test("the login page offers single sign-on below the password form", async ({ page }) => {
    await new LoginPage(page).goto();
    await expect(page.getByRole("button", { name: "Sign in with Test SSO" })).toBeVisible();
  });

  test("an Acme admin signs in through the provider and lands in Acme as admin", async ({ page }) => {
    await signInWithSso(page, ACME_ADMIN);
    await expectSignedIn(page);
    await expect(page.getByTestId("user-menu")).toContainText("Ada (SSO)");
    const who = await me(page);
    expect(who.user.email).toBe(ACME_ADMIN);
    expect(who.tenant?.name).toBe("Acme");
    expect(who.role).toBe("admin");
  });

  test("a Globex member signs in through the provider and lands in Globex as member", async ({ page }) => {
    await signInWithSso(page, GLOBEX_MEMBER);
    await expectSignedIn(page);
    const who = await me(page);
    expect(who.user.email).toBe(GLOBEX_MEMBER);
    expect(who.tenant?.name).toBe("Globex");
    expect(who.role).toBe("member");
  });

  test("single sign-on returns to the page the visitor asked for", async ({ page }) => {
    await page.goto("/dev/agent/cost");
    await expect(page).toHaveURL(/\/login\?callbackUrl=%2Fdev%2Fagent%2Fcost/);
    await signInWithSso(page, ACME_ADMIN, page.url());
    await expect(page).toHaveURL((url) => url.origin !== OIDC && url.pathname === "/dev/agent/cost");
    await expect(page.getByRole("heading", { name: "Cost dashboard" })).toBeVisible();
  });

  test("an unknown email is refused, and the login page says why", async ({ page }) => {
    await signInWithSso(page, "stranger@nowhere.test");
    await expect(page).toHaveURL((url) => url.pathname === "/login");
    expect(new URL(page.url()).searchParams.get("error")).toBe("SsoUnknownUser");
    await expect(new LoginPage(page).error()).toHaveText(UNKNOWN_MESSAGE);
    expect((await page.request.get("/api/me")).status()).toBe(401);
  });

  test("an email the provider has not verified is refused", async ({ page }) => {
    await signInWithSso(page, "unverified@acme.test");
    await expect(page).toHaveURL((url) => url.pathname === "/login");
    expect(new URL(page.url()).searchParams.get("error")).toBe("SsoEmailUnverified");
    await expect(new LoginPage(page).error()).toContainText("verified email");
    expect((await page.request.get("/api/me")).status()).toBe(401);
  });

  test("next-auth's own errors get a message too, and an unknown code a general one", async ({ page }) => {
    const login = new LoginPage(page);
    await login.goto("/login?error=Configuration");
    await expect(login.error()).toContainText("Single sign-on is not working right now");
    await login.goto("/login?error=AccessDenied");
    await expect(login.error()).toHaveText("Sign-in was refused.");
    await login.goto("/login?error=%3Cscript%3E");
    await expect(login.error()).toHaveText("Sign-in failed. Try again.");
  });

  test("the refusal reads in Chinese too", async ({ page, context, baseURL }) => {
    await context.addCookies([{ name: "tollgate-locale", value: "zh", url: baseURL! }]);
    await page.goto("/login?error=SsoUnknownUser");
    await expect(new LoginPage(page).error()).toHaveText(
      "没有 Tollgate 账户使用此邮箱，也没有租户允许该邮箱域名加入。请向管理员索取邀请。",
    );
    await expect(page.getByRole("button", { name: "使用 Test SSO 登录" })).toBeVisible();
  });

  test("a tenant admin sees the granted domains read-only; the platform admin edits them", async ({
    browser,
  }) => {
    const admin = await (await browser.newContext({ baseURL: BASE })).newPage();
    await signInAs(admin, "admin@acme.test");
    await admin.goto("/dev/admin/members");
    await expect(admin.getByTestId("sso-domains")).toContainText("acme-sso.test");
    await expect(admin.getByTestId("sso-domains-granted")).toHaveText(
      "The platform admin grants these domains; ask them to add or remove one. A domain belongs to one tenant only.",
    );
    await expect(admin.getByTestId("field-ssoDomains")).toHaveCount(0);
    await admin.context().close();

    const root = await rootPage(browser);
    await switchToTenant(root.request, "Acme");
    await root.goto("/dev/admin/members");
    await expect(root.getByTestId("field-ssoDomains")).toHaveValue("acme-sso.test");
    await root.context().close();
  });

  test("a new email at a domain the platform admin granted joins that tenant as a member", async ({
    browser,
    baseURL,
  }) => {
    // Globex's own admin may not claim a domain; the platform admin grants initech.test to Globex.
    const adminContext = await browser.newContext({ baseURL });
    const admin = await adminContext.newPage();
    await signInAs(admin, "admin@globex.test");
    const claimed = await admin.request.put("/api/admin/sign-in-settings", {
      data: { ssoDomains: ["Initech.test"] },
    });
    expect(claimed.status()).toBe(403);
    await adminContext.close();
    const root = await rootPage(browser);
    expect((await grantSsoDomains(root.request, "Globex", ["Initech.test"])).ssoDomains).toEqual([
      "initech.test",
    ]);

    try {
      const context = await browser.newContext({ baseURL });
      const page = await context.newPage();
      await signInWithSso(page, "peter@initech.test");
      await expectSignedIn(page);
      const who = await me(page);
      expect(who.user).toMatchObject({
        email: "peter@initech.test",
        name: "Peter (SSO)",
        isSuperAdmin: false,
      });
      expect(who.tenant?.name).toBe("Globex");
      expect(who.role).toBe("member");
      expect(who.tenants).toEqual([expect.objectContaining({ name: "Globex", role: "member" })]);
      await context.close();

      // Another domain is still refused.
      const other = await browser.newContext({ baseURL });
      const otherPage = await other.newPage();
      await signInWithSso(otherPage, "milton@initrode.test");
      await expect(otherPage).toHaveURL((url) => url.pathname === "/login");
      await expect(new LoginPage(otherPage).error()).toHaveText(UNKNOWN_MESSAGE);
      await other.close();
    } finally {
      await grantSsoDomains(root.request, "Globex", ["globex-sso.test"]);
      await root.context().close();
    }
  });
});
