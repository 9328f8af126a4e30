import { expect, type Page, test } from "@playwright/test";
import OpenAI from "openai";
import { FAKE_UPSTREAM } from "../../playwright.config";
import { Drawer, signInAs } from "./pages";
import { shotPath } from "./shots";

// The home shows today: an admin's tiles, each a link that lands on the filtered page it summarises, and a
// member's own conversations and usage. Every run renders the three screens (into test-results/screens);
// E2E_SCREENSHOTS=1 writes them to docs/screenshots.

// Globex: no other spec sets its budgets, so the calls here are never refused by a limit another spec left behind
// (and the budgets set here, soft only, are removed again).
const ADMIN = "admin@globex.test";
const MEMBER = "member@globex.test";
const today = () => new Date().toISOString().slice(0, 10);
const noLimits = {
  requestsPerMinute: null,
  tokensPerMinute: null,
  dailySoftUsd: null,
  dailyHardUsd: null,
  monthlySoftUsd: null,
  monthlyHardUsd: null,
};

/** Sets (or, with every value empty, removes) a scope's limits, as the limits page does. */
async function putLimits(page: Page, body: Record<string, unknown>) {
  const res = await page.request.put("/api/governance/limits", { data: { ...noLimits, ...body } });
  expect(res.status()).toBe(200);
}

/** Nothing sticks out sideways: the page is no wider than the window. */
async function expectNoSideScroll(page: Page) {
  const { scroll, width } = await page.evaluate(() => ({
    scroll: document.documentElement.scrollWidth,
    width: window.innerWidth,
  }));
  expect(scroll).toBeLessThanOrEqual(width);
}

const digits = (text: string | null) => (text ?? "").replace(/\D/g, "");

test.describe("the home", () => {
  test.use({ viewport: { width: 1280, height: 800 } });

  test("a tenant admin's today, each tile a link into the filtered page", async ({ page, baseURL }) => {
    test.setTimeout(90_000);
    await signInAs(page, ADMIN);
    // One API call under a new key, so today has a key to rank (the sample history's API rows have none).
    const name = `e2e home ${Date.now().toString(36)}`;
    const created = await page.request.post("/api/keys", { data: { name } });
    expect(created.status()).toBe(201);
    const { secret } = (await created.json()) as { secret: string };
    await page.request.post(`${FAKE_UPSTREAM}/__control/reset`);
    await page.request.post(`${FAKE_UPSTREAM}/__control/enqueue`, {
      data: { replies: [{ kind: "text", text: "ok", usage: { input: 80_000, output: 500 } }] },
    });
    await new OpenAI({ apiKey: secret, baseURL: `${baseURL}/v1`, maxRetries: 0 }).chat.completions.create({
      model: "gpt-fake",
      messages: [{ role: "user", content: "hello" }],
    });
    // A soft budget only (it never refuses a call another spec makes), removed again at the end.
    await putLimits(page, { scope: "tenant", dailySoftUsd: "25", monthlySoftUsd: "400" });
    try {
      // API calls reach the ledger in batches, a few milliseconds after the answer.
      await expect(async () => {
        await page.goto("/");
        await expect(page.getByTestId("home-key").filter({ hasText: name })).toBeVisible({ timeout: 1_000 });
      }).toPass({ timeout: 15_000 });
      for (const tile of ["spend-today", "spend-month", "calls", "models", "keys", "alerts"])
        await expect(page.getByTestId(`home-${tile}`)).toBeVisible();
      await expect(page.getByTestId("home-budget-daily")).toBeVisible();
      await expect(page.getByTestId("home-budget-daily").getByRole("progressbar")).toBeVisible();
      await page.screenshot({ path: shotPath("home-admin") });

      // Calls today → the cost dashboard from today counts the same calls.
      const calls = digits(await page.getByTestId("home-calls-count").textContent());
      expect(Number(calls)).toBeGreaterThan(0);
      await page.getByTestId("home-spend-today-link").click();
      // Compared as a URL, not a RegExp built from the date at run time.
      await expect(page).toHaveURL(
        (url) => url.pathname === "/dev/agent/cost" && url.search === `?f.day.from=${today()}`,
      );
      const requests = page.locator('[data-testid="metric-card"][data-metric-key="requests"]');
      await expect(requests.getByTestId("metric-value")).toHaveText(/\d/);
      await expect
        .poll(async () => digits(await requests.getByTestId("metric-value").textContent()))
        .toBe(calls);

      // The failure rate → the ledger's failed calls since today's start.
      await page.goto("/");
      await page.getByTestId("home-failures-link").click();
      await expect(page).toHaveURL(/\/dev\/agent\/turns\?/);
      const url = new URL(page.url());
      expect(url.searchParams.get("segment")).toBe("failed");
      expect(url.searchParams.get("f.startedAt.from")).toBe(today());
      await expect(page.locator('[data-testid="segment-tab"][data-value="failed"]')).toHaveAttribute(
        "aria-selected",
        "true",
      );
      const statuses = page.locator('[data-testid="data-row"] td[data-field="status"] [data-value]');
      for (const status of await statuses.evaluateAll((els) => els.map((e) => e.getAttribute("data-value"))))
        expect(status).toBe("failed");

      // A key → that key's calls today, by its id.
      await page.goto("/");
      await page.getByTestId("home-key").filter({ hasText: name }).click();
      await expect(page).toHaveURL(/f\.apiKeyId=/);
      await expect(page.getByTestId("data-row")).toHaveCount(1);
      await expect(page.locator('[data-testid="data-row"] td[data-field="caller"]')).toContainText(name);

      // A model → the ledger filtered to it, today.
      await page.goto("/");
      const model = page.getByTestId("home-model").first();
      const modelName = (await model.locator("span").first().textContent()) ?? "";
      await model.click();
      await expect(page).toHaveURL(/f\.servedModel=/);
      expect(new URL(page.url()).searchParams.get("f.servedModel")).toBe(modelName);
      await expect(page.getByTestId("data-row").first()).toBeVisible();
      for (const served of await page
        .locator('[data-testid="data-row"] td[data-field="servedModel"]')
        .allTextContents())
        expect(served.toLowerCase()).toContain(modelName.toLowerCase());

      // Alerts → the alerts page.
      await page.goto("/");
      await page.getByTestId("home-alerts-link").click();
      await expect(page).toHaveURL(/\/dev\/admin\/alerts$/);
      await expect(page.getByTestId("admin-alerts")).toBeVisible();
    } finally {
      await putLimits(page, { scope: "tenant" });
    }
  });

  test("a tenant admin's home fits a 360 px screen", async ({ page }) => {
    await page.setViewportSize({ width: 360, height: 800 });
    await signInAs(page, ADMIN);
    await expect(page.getByTestId("home-spend-today")).toBeVisible();
    await expect(page.getByTestId("home-keys")).toBeVisible();
    await expectNoSideScroll(page);
    await page.screenshot({ path: shotPath("home-admin-360"), fullPage: true });
  });

  test("a member's home: their conversations open in the drawer, their own usage and budget", async ({
    page,
    browser,
    baseURL,
  }) => {
    test.setTimeout(90_000);
    // The admin gives the member a soft budget of their own (removed again at the end).
    const admin = await browser.newPage({ baseURL });
    await signInAs(admin, ADMIN);
    const settings = (await (await admin.request.get("/api/governance/settings")).json()) as {
      users: { id: string; email: string }[];
    };
    const memberId = settings.users.find((u) => u.email === MEMBER)!.id;
    await putLimits(admin, { scope: "user", subjectId: memberId, dailySoftUsd: "2", monthlySoftUsd: "20" });
    try {
      await signInAs(page, MEMBER);
      await expect(page.getByTestId("home-my-usage")).toBeVisible();
      // An admin's tiles are not a member's.
      await expect(page.getByTestId("home-spend-today")).toHaveCount(0);
      const drawer = new Drawer(page);
      await drawer.open();
      const footers = await drawer.footers().count();
      const conversationId = await drawer.send("What is the status of my order 1042?");
      await expect(drawer.footers()).toHaveCount(footers + 1, { timeout: 20_000 });
      // A new conversation, so opening the listed one is seen to change what the drawer shows.
      await page.getByTestId("agent-new-conversation").click();
      await expect(drawer.user()).toHaveCount(0);
      await page.getByTestId("agent-drawer-toggle").click();
      await expect(drawer.panel()).toBeHidden();

      await page.goto("/");
      const listed = page.locator(
        `[data-testid="home-conversation"][data-conversation-id="${conversationId}"]`,
      );
      await expect(listed).toBeVisible();
      await expect(page.getByTestId("home-my-today-calls")).toHaveText(/[1-9]/);
      await expect(page.getByTestId("home-my-budget-daily")).toBeVisible();
      await page.screenshot({ path: shotPath("home-member") });

      await listed.click();
      await expect(drawer.panel()).toBeVisible();
      await expect(drawer.user().first()).toContainText("order 1042");
      await expectNoSideScroll(page);
    } finally {
      await putLimits(admin, { scope: "user", subjectId: memberId });
      await admin.close();
    }
  });
});
