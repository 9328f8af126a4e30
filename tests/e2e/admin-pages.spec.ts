import { readFileSync } from "node:fs";
import { expect, type Page, test } from "@playwright/test";
import { openFilter, signInAs } from "./pages";

const rows = (page: Page) => page.getByTestId("data-row");

test.describe("the schema-driven admin pages", () => {
  for (const [path, key] of [
    ["/dev/agent/turns", "agent-turns"],
    ["/dev/agent/audit", "agent-audit"],
    ["/dev/agent/cost", "agent-cost"],
    ["/dev/agent/tools", "agent-tools"],
  ] as const) {
    test(`${path} renders its seeded rows`, async ({ page }) => {
      await signInAs(page, "admin@acme.test");
      await page.goto(path);
      await expect(page.getByTestId("schema-page")).toHaveAttribute("data-schema-key", key);
      await expect(rows(page).first()).toBeVisible();
      expect(await rows(page).count()).toBeGreaterThan(3);
    });
  }

  test("a segment and a filter narrow the ledger, in the URL, and Back restores them", async ({ page }) => {
    await signInAs(page, "admin@acme.test");
    await page.goto("/dev/agent/turns");
    await expect(rows(page).first()).toBeVisible();
    const all = await rows(page).count();
    await page.locator('[data-testid="segment-tab"][data-value="failed"]').click();
    await expect(page).toHaveURL(/segment=failed/);
    // The previous rows stay (dimmed) while the new ones load: read them once the table is no longer busy.
    await expect(page.locator('table[aria-busy="false"]')).toBeVisible();
    await expect(rows(page).first()).toBeVisible();
    const statuses = await rows(page).locator('td[data-field="status"]').allTextContents();
    // The badge shows the segment's label ("Failed"), its raw value in data-value.
    expect(statuses.every((s) => s.toLowerCase().includes("failed"))).toBe(true);
    expect(statuses.length).toBeLessThan(all);

    await page.locator('[data-testid="segment-tab"][data-value=""]').click();
    await expect(page).not.toHaveURL(/segment=failed/);
    await openFilter(page, "servedModel");
    await page.getByTestId("filter-servedModel").fill("gpt-4o-mini");
    // Enter applies (the open suggestions may cover the Apply button).
    await page.getByTestId("filter-servedModel").press("Enter");
    await expect(page).toHaveURL(/f\.servedModel=gpt-4o-mini/);
    // Polled: the previous rows stay on screen (dimmed) until the filtered ones arrive.
    await expect
      .poll(async () => {
        const models = await rows(page).locator('td[data-field="servedModel"]').allTextContents();
        return models.length > 0 && models.every((m) => m === "gpt-4o-mini");
      })
      .toBe(true);
    await page.goBack();
    await expect(page).not.toHaveURL(/f\.servedModel/);
  });

  test("a row opens its detail with the audit trail as a timeline", async ({ page }) => {
    await signInAs(page, "admin@acme.test");
    await page.goto("/dev/agent/turns");
    await rows(page).first().click();
    await expect(page.getByTestId("detail-drawer")).toBeVisible();
    await expect(page.getByTestId("detail-event").first()).toHaveAttribute("data-seq", "1");
    await expect(page.getByTestId("detail-drawer")).toContainText("request");
    await page.getByTestId("detail-close").click();
    await expect(page.getByTestId("detail-drawer")).toHaveCount(0);
  });

  test("the CSV export has every filtered row, not just the page", async ({ page }) => {
    await signInAs(page, "admin@acme.test");
    await page.goto("/dev/agent/audit?segment=tool_call");
    await expect(rows(page).first()).toBeVisible();
    const { count } = await (
      await page.request.get("/api/schema/agent-audit/count?segment=tool_call")
    ).json();
    expect(count).toBeGreaterThan(50);
    const download = page.waitForEvent("download");
    await page.getByTestId("export-csv").click();
    const file = await (await download).path();
    const lines = readFileSync(file!, "utf8").trim().split("\n");
    expect(lines.length - 1).toBe(count);
  });

  test("the cost dashboard's charts render the seeded values", async ({ page }) => {
    await signInAs(page, "admin@acme.test");
    await page.goto("/dev/agent/cost");
    const { points } = await (
      await page.request.get("/api/schema/agent-cost/series?chart=costByModel")
    ).json();
    expect(points.length).toBeGreaterThan(1);
    const chart = page.locator('[data-testid="chart"][data-chart-key="costByModel"]');
    await expect(chart.locator(".recharts-bar-rectangle").first()).toBeVisible();
    // One bar per model that cost anything (a zero-height bar draws no rectangle).
    const priced = points.filter((p: { value: string }) => Number(p.value) > 0);
    expect(await chart.locator(".recharts-bar-rectangle").count()).toBe(priced.length);
    await expect(chart).toContainText(points[0].label);
    await expect(page.locator('[data-testid="metric-card"][data-metric-key="cost"]')).toContainText("$");
  });

  test("the super admin sees both tenants, with a tenant column", async ({ page }) => {
    await signInAs(page, "root@tollgate.test");
    await page.goto("/dev/agent/turns");
    await expect(rows(page).first()).toBeVisible();
    const text = await page.locator("table").textContent();
    expect(text).toContain("Acme");
    expect(text).toContain("Globex");
  });

  test("Chinese labels show when the language is switched", async ({ page }) => {
    await signInAs(page, "admin@acme.test");
    await page.goto("/dev/agent/turns");
    await page.getByTestId("language-switch").selectOption("zh");
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("用量台账");
    await expect(page.locator('[data-testid="segment-tab"][data-value="failed"]')).toHaveText("失败");
    await page.getByTestId("language-switch").selectOption("en");
  });
});
