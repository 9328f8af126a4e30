import { type APIRequestContext, expect, test } from "@playwright/test";
import { FAULT_CONTROL } from "../../playwright.config";
import { Drawer, signInAs } from "./pages";
import { shotPath } from "./shots";

// A database outage in front of the drawer, on the production build: the e2e server reaches PostgreSQL through a
// fault proxy (scripts/e2e-server.ts), which this spec switches to refuse connections while a message is sent.
// It runs after every other spec (its project depends on theirs); alone: `npx playwright test --no-deps outage`.
const fault = (request: APIRequestContext, mode: "pass" | "refuse") =>
  request.post(FAULT_CONTROL, { data: { mode } });

test.afterEach(async ({ request }) => {
  const state = (await (await request.get(FAULT_CONTROL)).json()) as { available: boolean };
  if (state.available) expect((await fault(request, "pass")).status()).toBe(200);
});

test("the drawer during a database outage says the service is briefly unavailable, keeps the message, and Retry works once it is back", async ({
  page,
  request,
}) => {
  // The config runs this spec only on PostgreSQL, where the e2e server puts the fault proxy in front of it.
  const state = (await (await request.get(FAULT_CONTROL)).json()) as { available: boolean };
  expect(state.available, "the e2e server has a fault proxy in front of PostgreSQL").toBe(true);
  await signInAs(page, "member@acme.test");
  const drawer = new Drawer(page);
  await drawer.open();
  await drawer.chooseModel("offline-demo");

  expect((await fault(request, "refuse")).status()).toBe(200);
  const text = "what did we spend on the checkout agent this week?";
  await drawer.input().fill(text);
  const answered = page.waitForResponse(
    (r) => r.url().endsWith("/api/agent/turns") && r.request().method() === "POST",
  );
  await drawer.input().press("Enter");
  const response = await answered;
  // A 503 with Retry-After, never a 500; the drawer says so and keeps what the person wrote.
  expect(response.status()).toBe(503);
  expect(Number(response.headers()["retry-after"])).toBeGreaterThan(0);
  const error = page.getByTestId("agent-error");
  await expect(error).toHaveAttribute("data-kind", "unavailable");
  await expect(error).toContainText("briefly unavailable");
  await expect(drawer.user().last()).toHaveText(text);
  await page.screenshot({ path: shotPath("drawer-unavailable") });

  // The database comes back: Retry (enabled once Retry-After has passed) sends the same message and it is answered.
  expect((await fault(request, "pass")).status()).toBe(200);
  const retry = page.getByTestId("agent-retry");
  await expect(retry).toBeEnabled({ timeout: 10_000 });
  await retry.click();
  await expect(drawer.footers().last()).toContainText("offline-demo", { timeout: 20_000 });
  await expect(drawer.user().last()).toHaveText(text);
  await expect(error).toHaveCount(0);
});

test("the pages during a database outage answer a 503 page that leads back, and sign-in says the service is away", async ({
  page,
  browser,
  request,
}) => {
  // The database was away in the test before: the pages serve again within seconds of its return (a connection
  // that came back out of step fails one query and is replaced; docs/operating.md#outages).
  test.setTimeout(90_000);
  const signedIn = async () =>
    (await page.goto("/"))?.status() === 200 && (await page.getByTestId("user-menu").isVisible());
  await expect
    .poll(
      async () => {
        if (!(await signedIn().catch(() => false)))
          await signInAs(page, "admin@acme.test").catch(() => undefined);
        return signedIn().catch(() => false);
      },
      { timeout: 45_000, intervals: [500, 1_000] },
    )
    .toBe(true);
  expect((await fault(request, "refuse")).status()).toBe(200);

  // A signed-in page: the 503 page (with Retry-After), not Next's 500 page, and a link back to where it was.
  const visited = await page.goto("/dev/admin/keys?status=active");
  expect(visited?.status()).toBe(503);
  expect(Number(visited?.headers()["retry-after"])).toBeGreaterThan(0);
  expect(new URL(page.url()).pathname).toBe("/unavailable");
  await expect(page.getByRole("heading", { name: "Tollgate is briefly unavailable" })).toBeVisible();
  const retry = page.getByTestId("unavailable-retry");
  await expect(retry).toHaveAttribute("href", "/dev/admin/keys?status=active");
  await page.screenshot({ path: shotPath("page-unavailable") });
  await page.setViewportSize({ width: 360, height: 740 });
  await page.screenshot({ path: shotPath("page-unavailable-360") });
  await page.setViewportSize({ width: 1280, height: 800 });
  // The way back is a same-site path only, as sign-in's callback is.
  for (const from of ["https://evil.test/x", "//evil.test", "/\t/evil.test", "javascript:alert(1)"]) {
    const other = await page.request.get(`/unavailable?from=${encodeURIComponent(from)}`);
    expect(other.status()).toBe(503);
    expect(await other.text()).toContain('href="/"');
  }

  // Signing in while the database is away: the form says so, not "wrong password".
  const visitor = await browser.newContext();
  const login = await visitor.newPage();
  await login.goto("/login");
  await login.getByLabel("Email").fill("member@acme.test");
  await login.getByLabel("Password").fill("tollgate-demo");
  await login.getByRole("button", { name: "Sign in", exact: true }).click();
  await expect(
    login.getByText("Tollgate is briefly unavailable (its database is not answering)"),
  ).toBeVisible();
  await visitor.close();

  // Back: Try again lands on the page it came from.
  expect((await fault(request, "pass")).status()).toBe(200);
  await expect
    .poll(async () => (await request.get("/api/health/ready")).status(), { timeout: 15_000 })
    .toBe(200);
  await retry.click();
  await expect(page).toHaveURL(/\/dev\/admin\/keys\?status=active$/);
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
});
