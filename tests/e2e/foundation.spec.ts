import { expect, test } from "@playwright/test";
import { LoginPage, signInAs, TopBar } from "./pages";

test.describe("signing in", () => {
  for (const [email, name] of [
    ["member@acme.test", "Max Member (Acme)"],
    ["admin@acme.test", "Ada Admin (Acme)"],
    ["admin@globex.test", "Gia Admin (Globex)"],
    ["member@globex.test", "Gus Member (Globex)"],
    ["root@tollgate.test", "Platform Root"],
    ["multi@tollgate.test", "Mia Multi"],
  ] as const) {
    test(`${email} signs in and sees their name in the top bar`, async ({ page }) => {
      await signInAs(page, email);
      await expect(page.getByTestId("user-menu")).toContainText(name);
    });
  }

  test("a wrong password shows one message that does not say which field was wrong", async ({ page }) => {
    const login = new LoginPage(page);
    await login.goto();
    await login.signIn("member@acme.test", "not-the-password");
    await expect(login.error()).toHaveText("Wrong email or password.");
    await login.signIn("nobody@acme.test", "not-the-password");
    await expect(login.error()).toHaveText("Wrong email or password.");
    await expect(page).toHaveURL(/\/login/);
  });

  test("a signed-out visitor lands on /login and returns to the page afterwards", async ({ page }) => {
    await page.goto("/dev/agent/cost");
    await expect(page).toHaveURL(/\/login\?callbackUrl=%2Fdev%2Fagent%2Fcost/);
    await new LoginPage(page).signIn("admin@acme.test");
    await expect(page).toHaveURL(/\/dev\/agent\/cost$/);
    await expect(page.getByRole("heading", { name: "Cost dashboard" })).toBeVisible();
  });

  test("repeated failures for one email are refused with 429 and Retry-After", async ({
    request,
    baseURL,
  }) => {
    const attempt = () =>
      request.post("/api/login", {
        data: { email: "throttled@acme.test", password: "wrong-password" },
        headers: { origin: baseURL! },
      });
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await attempt()).status());
    expect(statuses).toEqual([401, 401, 401, 401, 401]);
    const blocked = await attempt();
    expect(blocked.status()).toBe(429);
    expect(Number(blocked.headers()["retry-after"])).toBeGreaterThan(0);
    expect((await blocked.json()).error.message).toMatch(/too many failed sign-in attempts/i);
  });
});

test.describe("admin pages and role gates", () => {
  test("a member is refused /dev/agent/turns with a 403 page", async ({ page }) => {
    await signInAs(page, "member@acme.test");
    await expect(page.getByRole("link", { name: "Usage ledger" })).toHaveCount(0);
    const res = await page.goto("/dev/agent/turns");
    expect(res?.status()).toBe(403);
    await expect(page.getByTestId("forbidden")).toContainText("403");
  });

  test("a tenant admin reaches /dev/agent/turns for their tenant", async ({ page }) => {
    await signInAs(page, "admin@acme.test");
    // The home's admin-pages link (exactly "Usage ledger"; the home's tiles link to filtered views of it).
    await page.getByRole("link", { name: "Usage ledger", exact: true }).first().click();
    await expect(page).toHaveURL(/\/dev\/agent\/turns$/);
    await expect(page.getByRole("heading", { name: "Usage ledger" })).toBeVisible();
    await expect(page.getByTestId("page-scope")).toHaveText("Scope: Acme");
  });

  test("the super admin reaches /dev/agent/turns across every tenant", async ({ page }) => {
    await signInAs(page, "root@tollgate.test");
    const res = await page.goto("/dev/agent/turns");
    expect(res?.status()).toBe(200);
    await expect(page.getByTestId("page-scope")).toHaveText("Scope: every tenant");
  });

  test("API handlers answer 401 to a signed-out caller", async ({ request }) => {
    const res = await request.get("/api/me");
    expect(res.status()).toBe(401);
    expect((await res.json()).error.code).toBe("unauthorized");
  });
});

test.describe("the shell", () => {
  test("switching tenant changes the active tenant in the top bar and the role with it", async ({ page }) => {
    await signInAs(page, "multi@tollgate.test");
    const bar = new TopBar(page);
    await expect(bar.activeTenant()).toHaveText("Acme");
    await expect(page.getByRole("link", { name: "Usage ledger" })).toHaveCount(0);
    await bar.switchTenant("Globex");
    await expect(bar.activeTenant()).toHaveText("Globex");
    await expect(page.getByTestId("home-scope")).toContainText("Globex (your role: admin)");
    await expect(page.getByRole("link", { name: "Usage ledger" }).first()).toBeVisible();
    await page.reload();
    await expect(bar.activeTenant()).toHaveText("Globex");
  });

  test("signing out returns to /login, and the pages are closed again", async ({ page }) => {
    await signInAs(page, "admin@globex.test");
    await new TopBar(page).signOut();
    await expect(page).toHaveURL(/\/login/);
    await page.goto("/");
    await expect(page).toHaveURL(/\/login\?callbackUrl=%2F$/);
  });

  test("the language switch shows Chinese text, and the choice persists", async ({ page }) => {
    await signInAs(page, "member@acme.test");
    await page.getByTestId("language-switch").selectOption("zh");
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Acme 今日概览");
    await page.reload();
    await expect(page.getByRole("button", { name: "切换深色模式" })).toBeVisible();
    await page.getByTestId("language-switch").selectOption("en");
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Today in Acme");
  });

  test("the theme toggle switches to dark and keeps it after a reload", async ({ page }) => {
    await signInAs(page, "member@acme.test");
    const html = page.locator("html");
    const wasDark = ((await html.getAttribute("class")) ?? "").includes("dark");
    await page.getByTestId("theme-toggle").click();
    await expect(html).toHaveClass(wasDark ? /^(?!.*dark)/ : /dark/);
    await page.reload();
    await expect(html).toHaveClass(wasDark ? /^(?!.*dark)/ : /dark/);
  });

  test("GET /api/health reports the database, the migration and the version", async ({ request }) => {
    const res = await request.get("/api/health");
    expect(res.status()).toBe(200);
    const body = await res.json();
    expect(body).toMatchObject({ status: "ok", database: { reachable: true } });
    expect(body.database.migration.applied).toBe(body.database.migration.expected);
    expect(body.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(body.governanceWriteFailures).toEqual({ ledger: 0, audit: 0, conversation: 0, pipeline: 0 });
  });
});
