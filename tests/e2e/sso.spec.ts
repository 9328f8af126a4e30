import { expect, type Page, test } from "@playwright/test";
import { LoginPage, signInAs } from "./pages";

// Single sign-on against a real OpenID Connect provider (oidc-provider, started by scripts/e2e-server.ts as
// "Test SSO"): its own development login page accepts any login, which becomes the ID token's email; a login
// starting with "unverified" comes back with email_verified: false.
const OIDC = `http://127.0.0.1:${process.env.E2E_OIDC_PORT ?? 3192}`;

// On localhost, not 127.0.0.1: Next.js gives next-auth's route handlers http://localhost:<port> as their URL (it
// rewrites loopback addresses), so that is where the redirect URI points and where next-auth's cookies must be.
// A deployment sets AUTH_URL to its public URL instead.
test.use({ baseURL: `http://localhost:${process.env.E2E_PORT ?? "3100"}` });

const UNKNOWN_MESSAGE =
  "No Tollgate account uses this email, and no tenant lets its domain join. Ask your admin for an invitation.";

/** From the Tollgate login page through the provider's login and consent pages, back to Tollgate. */
async function signInWithSso(page: Page, email: string, path = "/login") {
  await page.goto(path);
  await page.getByRole("button", { name: "Sign in with Test SSO" }).click();
  await expect(page).toHaveURL((url) => url.origin === OIDC && url.pathname.startsWith("/interaction/"));
  await page.locator('input[name="login"]').fill(email);
  await page.locator('input[name="password"]').fill("any password: the test provider accepts everyone");
  await page.getByRole("button", { name: "Sign-in" }).click();
  await page.getByRole("button", { name: "Continue" }).click();
}

async function me(page: Page) {
  const res = await page.request.get("/api/me");
  expect(res.status()).toBe(200);
  return (await res.json()) as {
    user: { email: string; name: string; isSuperAdmin: boolean };
    tenant: { name: string } | null;
    role: string | null;
    tenants: { name: string; role: string }[];
  };
}

async function expectSignedIn(page: Page) {
  await expect(page).toHaveURL((url) => url.origin !== OIDC && url.pathname === "/");
  await expect(page.getByTestId("user-menu")).toBeVisible();
}

test.describe("single sign-on (OpenID Connect)", () => {
  test("the login page offers single sign-on below the password form", async ({ page }) => {
    await new LoginPage(page).goto();
    await expect(page.getByRole("button", { name: "Sign in with Test SSO" })).toBeVisible();
  });

  test("an Acme admin signs in through the provider and lands in Acme as admin", async ({ page }) => {
    await signInWithSso(page, "admin@acme.test");
    await expectSignedIn(page);
    await expect(page.getByTestId("user-menu")).toContainText("Ada Admin (Acme)");
    const who = await me(page);
    expect(who.user.email).toBe("admin@acme.test");
    expect(who.tenant?.name).toBe("Acme");
    expect(who.role).toBe("admin");
  });

  test("a Globex member signs in through the provider and lands in Globex as member", async ({ page }) => {
    await signInWithSso(page, "member@globex.test");
    await expectSignedIn(page);
    const who = await me(page);
    expect(who.user.email).toBe("member@globex.test");
    expect(who.tenant?.name).toBe("Globex");
    expect(who.role).toBe("member");
  });

  test("single sign-on returns to the page the visitor asked for", async ({ page }) => {
    await page.goto("/dev/agent/cost");
    await expect(page).toHaveURL(/\/login\?callbackUrl=%2Fdev%2Fagent%2Fcost/);
    await signInWithSso(page, "admin@acme.test", page.url());
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

  test("a new email at a domain a tenant admin allowed joins that tenant as a member", async ({
    browser,
    baseURL,
  }) => {
    // The Globex admin lets initech.test join Globex.
    const adminContext = await browser.newContext({ baseURL });
    const admin = await adminContext.newPage();
    await signInAs(admin, "admin@globex.test");
    const saved = await admin.request.put("/api/admin/sign-in-settings", {
      data: { ssoDomains: ["Initech.test"] },
    });
    expect(saved.status(), await saved.text()).toBe(200);
    expect((await saved.json()).ssoDomains).toEqual(["initech.test"]);

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
      await admin.request.put("/api/admin/sign-in-settings", { data: { ssoDomains: [] } });
      await adminContext.close();
    }
  });
});
