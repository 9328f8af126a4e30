import { expect, type Locator, type Page, test } from "@playwright/test";
import { exactMoney, formatMoney } from "@/lib/core/format/money";
import { signInAs } from "./pages";
import { SHOTS, shotPath } from "./shots";

// Every run renders the shots (into test-results/screens); E2E_SCREENSHOTS=1 refreshes the README's.
const shot = (page: Page, name: string, fullPage = true) =>
  page.screenshot({ path: shotPath(name), fullPage });

test.use({ viewport: { width: 1280, height: 800 } });

const charts = (page: Page) => page.getByTestId("chart");
const chart = (page: Page, key: string) => page.locator(`[data-testid="chart"][data-chart-key="${key}"]`);
/** The amount a chart's table cell stands for ("$1,234.56" → 1234.56; "12K" is never used in the table). */
const amount = (text: string) => Number(text.replace(/[$,]/g, ""));

async function chartsLoaded(page: Page) {
  await expect(charts(page).first()).toBeVisible();
  await expect(page.getByTestId("chart-skeleton")).toHaveCount(0);
  for (const c of await charts(page).all()) await expect(c).toHaveAttribute("aria-busy", "false");
}

/** The rows of a chart's table: label and displayed value, in the table's order. */
async function tableRows(c: Locator) {
  return c.locator("tbody tr").evaluateAll((rows) =>
    rows.map((r) => ({
      label: r.querySelector("th")?.textContent ?? "",
      value: r.querySelector("td")?.textContent ?? "",
    })),
  );
}

test.describe("charts that read", () => {
  test("every bar of every chart on the cost dashboard is labelled, sorted by value, and in a table", async ({
    page,
  }) => {
    await signInAs(page, "admin@acme.test");
    await page.goto("/dev/agent/cost");
    await chartsLoaded(page);
    const bars = page.locator('[data-testid="chart"][data-chart-type="bar"]');
    expect(await bars.count()).toBeGreaterThanOrEqual(5);
    let drawn = 0;
    for (const c of await bars.all()) {
      const key = await c.getAttribute("data-chart-key");
      const rows = await tableRows(c);
      const { points } = await (await page.request.get(`/api/schema/agent-cost/series?chart=${key}`)).json();
      expect(rows.length, `${key}: a table row per point`).toBe(points.length);
      if (rows.length === 0) {
        await expect(c.getByTestId("chart-empty")).toBeVisible();
        continue;
      }
      drawn++;
      // A visible label on the axis for every bar, in the table's order, none overlapping the next.
      const labels = c.getByTestId("chart-bar-label");
      await expect(labels).toHaveCount(rows.length);
      const full = await labels.evaluateAll((ls) =>
        ls.map((l) => l.querySelector("title")?.textContent ?? ""),
      );
      expect(full, `${key}: every bar labelled`).toEqual(rows.map((r) => r.label));
      const boxes = [];
      for (const label of await labels.all()) {
        await expect(label).toBeVisible();
        boxes.push((await label.boundingBox())!);
      }
      for (let i = 1; i < boxes.length; i++)
        expect(boxes[i]!.y, `${key}: label ${i} below label ${i - 1}`).toBeGreaterThanOrEqual(
          boxes[i - 1]!.y + boxes[i - 1]!.height - 1,
        );
      // Sorted by value, largest first (the exact amounts, not the rounded ones).
      const values = points.map((p: { value: string | number }) => Number(p.value));
      const shown = rows.map((r) => amount(r.value));
      expect(shown, `${key}: sorted by value`).toEqual([...shown].sort((a, b) => b - a));
      expect(values).toEqual([...values].sort((a, b) => b - a));
    }
    expect(drawn, "the demo data draws bars").toBeGreaterThanOrEqual(3);

    // The table on screen when asked for, with its caption; values on hover, money to the last decimal.
    const byModel = chart(page, "costByModel");
    const [top] = await tableRows(byModel);
    await byModel.locator(".recharts-bar-rectangle").first().hover();
    await expect(byModel.locator(".recharts-tooltip-wrapper")).toContainText(top!.value);
    await byModel.getByTestId("chart-table-toggle").click();
    await expect(byModel.getByTestId("chart-table")).toBeVisible();
    await expect(byModel.locator("caption")).toHaveText("Cost by model");
    await expect(byModel.locator(".recharts-surface")).toHaveCount(0);
    await byModel.getByTestId("chart-table-toggle").click();
    await expect(byModel.locator(".recharts-surface")).toBeVisible();
  });

  test("time series pick a granularity for the range; an empty range says so; loading shows skeletons", async ({
    page,
  }) => {
    await signInAs(page, "admin@acme.test");
    const today = new Date().toISOString().slice(0, 10);
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    await page.goto(`/dev/agent/cost?f.day.from=${yesterday}&f.day.to=${today}`);
    await chartsLoaded(page);
    const overTime = chart(page, "costByDay");
    await expect(overTime).toHaveAttribute("data-granularity", "hour");
    await expect(overTime.getByTestId("chart-granularity")).toHaveText("by hour, UTC");
    expect((await tableRows(overTime)).length).toBe(48);

    const monthAgo = new Date(Date.now() - 30 * 86_400_000).toISOString().slice(0, 10);
    await page.goto(`/dev/agent/cost?f.day.from=${monthAgo}&f.day.to=${today}`);
    await chartsLoaded(page);
    await expect(overTime).toHaveAttribute("data-granularity", "day");
    expect((await tableRows(overTime)).length).toBe(31);

    await page.goto("/dev/agent/cost?f.day.from=2020-01-01&f.day.to=2020-12-31");
    await chartsLoaded(page);
    for (const c of await charts(page).all())
      await expect(c.getByTestId("chart-empty")).toHaveText("No data for this time range.");
    await expect(page.locator(".recharts-surface")).toHaveCount(0);

    // While the series load: skeletons, not empty axes.
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    await page.route("**/api/schema/agent-cost/series*", async (route) => {
      await held;
      await route.continue();
    });
    await page.goto("/dev/agent/cost");
    await expect(page.getByTestId("chart-skeleton").first()).toBeVisible();
    await expect(page.locator(".recharts-surface")).toHaveCount(0);
    await expect(page.getByTestId("chart-empty")).toHaveCount(0);
    release();
    await chartsLoaded(page);
    await expect(chart(page, "costByModel").locator(".recharts-surface")).toBeVisible();
  });
});

test.describe("navigation", () => {
  const TITLES: [string, string, string][] = [
    ["/", "Home · Tollgate", "首页 · Tollgate"],
    ["/account", "Your account · Tollgate", "我的账户 · Tollgate"],
    ["/dev/agent/turns", "Usage ledger · Tollgate", "用量台账 · Tollgate"],
    ["/dev/agent/audit", "Audit replay · Tollgate", "审计回放 · Tollgate"],
    ["/dev/agent/cost", "Cost dashboard · Tollgate", "成本看板 · Tollgate"],
    ["/dev/agent/tools", "Tool catalog · Tollgate", "工具目录 · Tollgate"],
    ["/dev/admin/keys", "Keys · Tollgate", "密钥 · Tollgate"],
    ["/dev/admin/limits", "Limits & budgets · Tollgate", "限额与预算 · Tollgate"],
    ["/dev/admin/alerts", "Alerts · Tollgate", "告警 · Tollgate"],
    ["/dev/admin/members", "Members · Tollgate", "成员 · Tollgate"],
    ["/dev/admin/changes", "Admin changes · Tollgate", "管理变更 · Tollgate"],
    ["/dev/admin/tenants", "Tenants · Tollgate", "租户 · Tollgate"],
  ];

  test("every page has its own title, in both languages", async ({ page, baseURL }) => {
    test.setTimeout(60_000);
    await page.goto("/login");
    await expect(page).toHaveTitle("Sign in · Tollgate");
    await signInAs(page, "root@tollgate.test");
    for (const [path, en] of TITLES) {
      await page.goto(path);
      await expect(page, path).toHaveTitle(en);
    }
    await page.context().addCookies([{ name: "tollgate-locale", value: "zh", url: baseURL! }]);
    for (const [path, , zh] of TITLES) {
      await page.goto(path);
      await expect(page, path).toHaveTitle(zh);
    }
    await page.context().clearCookies({ name: "tollgate-locale" });
  });

  test("at 1280 px the top bar is one row, marks the current page, and its menus open, move and navigate", async ({
    page,
  }) => {
    await signInAs(page, "admin@acme.test");
    await page.goto("/dev/agent/cost");
    const bar = page.locator("#top-bar");
    expect((await bar.boundingBox())!.height).toBeLessThanOrEqual(64);

    const usage = page.getByTestId("nav-menu-usage");
    const admin = page.getByTestId("nav-menu-admin");
    await expect(usage).toHaveAttribute("aria-current", "true");
    await expect(admin).not.toHaveAttribute("aria-current", /.*/);
    await usage.click();
    const usageMenu = page.getByRole("menu", { name: "Usage" });
    await expect(usageMenu).toBeVisible();
    await expect(usageMenu.getByRole("menuitem")).toHaveText([
      "Usage ledger",
      "Runs",
      "Audit replay",
      "Cost dashboard",
      "Tool catalog",
    ]);
    await expect(usageMenu.getByRole("menuitem", { name: "Cost dashboard" })).toHaveAttribute(
      "aria-current",
      "page",
    );
    if (SHOTS) await shot(page, "topbar-menus", false);
    // A click outside closes it.
    await page.locator("main").click({ position: { x: 5, y: 5 } });
    await expect(usageMenu).toBeHidden();

    // The keyboard: Enter opens on the first item, arrows move, Escape closes back onto the button.
    await admin.focus();
    await page.keyboard.press("Enter");
    const adminMenu = page.getByRole("menu", { name: "Admin" });
    await expect(adminMenu.getByRole("menuitem", { name: "Keys" })).toBeFocused();
    await expect(adminMenu.getByRole("menuitem", { name: "Tenants" })).toHaveCount(0);
    await page.keyboard.press("ArrowDown");
    await expect(adminMenu.getByRole("menuitem", { name: "Limits" })).toBeFocused();
    await page.keyboard.press("End");
    await expect(adminMenu.getByRole("menuitem", { name: "Evaluations" })).toBeFocused();
    await page.keyboard.press("ArrowDown");
    await expect(adminMenu.getByRole("menuitem", { name: "Keys" })).toBeFocused();
    await page.keyboard.press("Escape");
    await expect(adminMenu).toBeHidden();
    await expect(admin).toBeFocused();

    // Choosing an item navigates; the mark follows.
    await admin.click();
    await adminMenu.getByRole("menuitem", { name: "Limits" }).click();
    await expect(page).toHaveURL(/\/dev\/admin\/limits$/);
    await expect(page).toHaveTitle("Limits & budgets · Tollgate");
    await expect(admin).toHaveAttribute("aria-current", "true");
    await expect(usage).not.toHaveAttribute("aria-current", /.*/);
    await expect(adminMenu).toBeHidden();
    await admin.click();
    await expect(adminMenu.getByRole("menuitem", { name: "Limits" })).toHaveAttribute("aria-current", "page");
    expect((await bar.boundingBox())!.height).toBeLessThanOrEqual(64);

    // The super admin's Admin menu also has Tenants, and the bar still fits in one row.
    await page.context().clearCookies();
    await signInAs(page, "root@tollgate.test");
    await page.getByTestId("nav-menu-admin").click();
    await expect(page.getByRole("menuitem", { name: "Tenants" })).toBeVisible();
    expect((await bar.boundingBox())!.height).toBeLessThanOrEqual(64);
  });

  test("at 360 px the top bar is one compact row and its menu button reaches the links", async ({ page }) => {
    await page.setViewportSize({ width: 360, height: 740 });
    await signInAs(page, "admin@acme.test");
    const bar = page.locator("#top-bar");
    expect((await bar.boundingBox())!.height).toBeLessThanOrEqual(56);
    const user = page.getByTestId("user-menu").locator("summary");
    expect((await user.boundingBox())!.height).toBeLessThanOrEqual(40);
    await expect(page.getByTestId("nav-menu-usage")).toBeHidden();
    if (SHOTS) await shot(page, "home-mobile", false);

    const toggle = page.getByTestId("nav-toggle");
    await expect(toggle).toHaveAttribute("aria-expanded", "false");
    await toggle.click();
    await expect(toggle).toHaveAttribute("aria-expanded", "true");
    const panel = page.locator("#top-bar-panel");
    await expect(panel.getByRole("link", { name: "Usage ledger" })).toBeVisible();
    await expect(panel.getByRole("link", { name: "Members" })).toBeVisible();
    await panel.getByRole("link", { name: "Cost dashboard" }).click();
    await expect(page).toHaveURL(/\/dev\/agent\/cost$/);
    await expect(toggle).toHaveAttribute("aria-expanded", "false");
    await toggle.click();
    await expect(panel.getByRole("link", { name: "Cost dashboard" })).toHaveAttribute("aria-current", "page");
    await page.keyboard.press("Escape");
    await expect(panel).toBeHidden();
    expect((await bar.boundingBox())!.height).toBeLessThanOrEqual(56);

    await chartsLoaded(page);
    if (SHOTS) await shot(page, "admin-cost-mobile");
  });
});

test("money reads the same on the ledger's cards, the dashboard and Limits, exact on hover", async ({
  page,
}) => {
  await signInAs(page, "admin@acme.test");
  await page.goto("/dev/agent/turns");
  const { metrics } = await (await page.request.get("/api/schema/agent-turns/metrics")).json();
  const card = page.locator(
    '[data-testid="metric-card"][data-metric-key="cost"] [data-testid="metric-value"]',
  );
  await expect(card).toHaveText(formatMoney(metrics.cost));
  await expect(card).toHaveAttribute("title", exactMoney(metrics.cost)!);
  expect(await card.textContent()).toMatch(/^\$[\d,]+\.\d{2}$|^\$0\.\d+$/);

  await page.goto("/dev/agent/cost");
  const cost = await (await page.request.get("/api/schema/agent-cost/metrics")).json();
  await expect(
    page.locator('[data-testid="metric-card"][data-metric-key="cost"] [data-testid="metric-value"]'),
  ).toHaveText(formatMoney(cost.metrics.cost));
  await chartsLoaded(page);
  if (SHOTS) await shot(page, "admin-cost");

  // The tenant's monthly spend against a budget on Limits (set here, removed after).
  const budget = { scope: "tenant", monthlyHardUsd: "400" };
  expect((await page.request.put("/api/governance/limits", { data: budget })).status()).toBe(200);
  try {
    await page.goto("/dev/admin/limits");
    const settings = await (await page.request.get("/api/governance/settings")).json();
    const spentMonth = settings.tenantLimits.spentThisMonth;
    const spent = page.getByTestId("tenant-limits-form").getByTestId("spent-month");
    await expect(spent).toContainText(`${formatMoney(spentMonth)} of $400.00`);
    await expect(spent.locator("[title]").first()).toHaveAttribute("title", exactMoney(spentMonth)!);
  } finally {
    await page.request.put("/api/governance/limits", { data: { scope: "tenant" } });
  }
});
