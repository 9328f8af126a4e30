import { expect, type Page, test } from "@playwright/test";
import { openFilter, signInAs } from "./pages";

test.use({ viewport: { width: 1280, height: 800 } });

const rows = (page: Page) => page.getByTestId("data-row");
const table = (page: Page) => page.getByTestId("table-scroll");
const header = (page: Page, name: string) => table(page).getByRole("columnheader", { name, exact: true });
const loaded = async (page: Page) => {
  await expect(page.locator("table")).toHaveAttribute("aria-busy", "false");
  await expect(rows(page).first()).toBeVisible();
};
const cells = (page: Page, field: string) =>
  rows(page).locator(`td[data-field="${field}"]`).allTextContents();

/** The ledger's columns that must fit at 1280 px, by their English header. */
const KEY_COLUMNS = ["Started", "User / API key", "Status", "Served model", "In", "Out", "Cost", "Latency"];

test.describe("tables that fit and filters that help", () => {
  test("the ledger's key columns are inside the table and the viewport without scrolling", async ({
    page,
  }) => {
    await signInAs(page, "admin@acme.test");
    await page.goto("/dev/agent/turns");
    await loaded(page);
    const box = (await table(page).boundingBox())!;
    for (const name of KEY_COLUMNS) {
      const th = (await header(page, name).boundingBox())!;
      expect(th, name).not.toBeNull();
      expect(th.x, name).toBeGreaterThanOrEqual(box.x);
      expect(th.x + th.width, name).toBeLessThanOrEqual(box.x + box.width);
      expect(th.x + th.width, name).toBeLessThanOrEqual(1280);
    }
    // Nothing to scroll sideways, in the table or the page.
    const overflow = await table(page).evaluate((el) => el.scrollWidth - el.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(1280);
    // Numbers line up on the right, in tabular figures; long text is cut with its whole value on hover.
    const cost = rows(page).first().locator('td[data-field="cost"]');
    await expect(cost).toHaveClass(/text-right/);
    await expect(cost).toHaveClass(/tabular-nums/);
    await expect(rows(page).first().locator('td[data-field="caller"] [title]')).toHaveAttribute(
      "title",
      /.+/,
    );
    // Hidden columns are still in the row's details.
    await expect(header(page, "Tools")).toHaveCount(0);
  });

  test("at 360 px the table scrolls inside its own box, not the page", async ({ page }) => {
    await page.setViewportSize({ width: 360, height: 780 });
    await signInAs(page, "admin@acme.test");
    await page.goto("/dev/agent/turns");
    await loaded(page);
    expect(await table(page).evaluate((el) => el.scrollWidth > el.clientWidth)).toBe(true);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
  });

  test("the column picker hides and shows a column, and remembers it after a reload", async ({ page }) => {
    await signInAs(page, "admin@acme.test");
    await page.goto("/dev/agent/turns");
    await loaded(page);
    await page.getByTestId("column-picker-toggle").click();
    await page.getByTestId("column-toggle-tools").check();
    await page.getByTestId("column-toggle-servedModel").uncheck();
    await expect(header(page, "Tools")).toBeVisible();
    await expect(header(page, "Served model")).toHaveCount(0);
    await page.reload();
    await loaded(page);
    await expect(header(page, "Tools")).toBeVisible();
    await expect(header(page, "Served model")).toHaveCount(0);
    // Back to the schema's defaults.
    await page.getByTestId("column-picker-toggle").click();
    await page.getByTestId("column-picker-reset").click();
    await expect(header(page, "Served model")).toBeVisible();
    await expect(header(page, "Tools")).toHaveCount(0);
  });

  test("a suggestion and a time preset change the rows and the URL; a chip removes its filter", async ({
    page,
  }) => {
    await signInAs(page, "admin@acme.test");
    await page.goto("/dev/agent/turns");
    await loaded(page);

    // "gpt" is contained in several models: the list offers them, from this tenant's data.
    await openFilter(page, "servedModel");
    const model = page.getByTestId("filter-servedModel");
    await model.fill("gpt");
    const list = page.getByTestId("suggestions-servedModel");
    await expect(list.getByTestId("suggestion").first()).toBeVisible();
    const offered = await list
      .getByTestId("suggestion")
      .evaluateAll((els) => els.map((el) => el.getAttribute("data-value") ?? ""));
    expect(offered.length).toBeGreaterThan(1);
    expect(offered.every((v) => v.toLowerCase().includes("gpt"))).toBe(true);
    await list.locator('[data-value="gpt-4.1"]').click();
    await page.getByTestId("filter-apply").click();
    await expect(page).toHaveURL(/f\.servedModel=gpt-4\.1(&|$)/);
    await expect.poll(async () => [...new Set(await cells(page, "servedModel"))]).toEqual(["gpt-4.1"]);

    // Free text still filters, by containment: the chip opens the editor on its value.
    await page.getByTestId("filter-chip-edit").click();
    await page.getByTestId("filter-servedModel").fill("gpt");
    await page.getByTestId("filter-servedModel").press("Enter");
    await expect(page).toHaveURL(/f\.servedModel=gpt(&|$)/);
    await expect.poll(async () => new Set(await cells(page, "servedModel")).size).toBeGreaterThan(1);
    expect((await cells(page, "servedModel")).every((m) => m.includes("gpt"))).toBe(true);

    // The last 24 hours: an ISO time in the URL, and only rows since then.
    const before = await page.getByTestId("row-count").textContent();
    await page.getByTestId("preset-startedAt-24h").click();
    await expect(page).toHaveURL(/f\.startedAt\.from=\d{4}-\d\d-\d\dT\d\d%3A\d\d%3A00Z/);
    const from = Date.parse(new URL(page.url()).searchParams.get("f.startedAt.from")!);
    expect(Date.now() - from).toBeGreaterThan(23 * 3_600_000);
    await expect(page.getByTestId("row-count")).not.toHaveText(before ?? "");
    await loaded(page);
    const times = await rows(page)
      .locator('td[data-field="startedAt"] time')
      .evaluateAll((els) => els.map((el) => Date.parse(el.getAttribute("datetime") ?? "")));
    expect(times.every((t) => t >= from)).toBe(true);

    // Each active filter is a chip; its × removes just that filter.
    const chips = page.getByTestId("filter-chip");
    await expect(chips).toHaveCount(2);
    await page
      .locator('[data-testid="filter-chip"][data-name="startedAt.from"]')
      .getByTestId("filter-chip-remove")
      .click();
    await expect(page).not.toHaveURL(/f\.startedAt\.from/);
    await expect(page).toHaveURL(/f\.servedModel=gpt/);
    await expect(chips).toHaveCount(1);
  });

  test("the super admin filters by a tenant's name, not its id", async ({ page }) => {
    await signInAs(page, "root@tollgate.test");
    await page.goto("/dev/agent/turns");
    await loaded(page);
    await openFilter(page, "tenant");
    await page.getByTestId("filter-tenant").fill("glo");
    await page.getByTestId("suggestions-tenant").locator('[data-value="Globex"]').click();
    await page.getByTestId("filter-apply").click();
    await expect(page).toHaveURL(/f\.tenant=Globex/);
    await expect.poll(async () => [...new Set(await cells(page, "tenantName"))]).toEqual(["Globex"]);
    await expect(page.locator('[data-testid="filter-chip"][data-name="tenant"]')).toContainText("Globex");
  });

  test("badges read in Chinese under the zh locale", async ({ page, baseURL }) => {
    await page.context().addCookies([{ name: "tollgate-locale", value: "zh", url: baseURL! }]);
    await signInAs(page, "admin@acme.test");
    await page.goto("/dev/agent/turns");
    await loaded(page);
    const statuses = await cells(page, "status");
    expect(statuses.length).toBeGreaterThan(3);
    for (const s of statuses) expect(["成功", "失败", "已停止", "达到上限", "已中断", "进行中"]).toContain(s);
    // In the row's details too.
    await rows(page).first().click();
    const detail = page.getByTestId("detail-drawer");
    // The Turn section's first badge is the status, its second the source.
    await expect(detail.locator("dd [data-value]").first()).toHaveText(
      /^(成功|失败|已停止|达到上限|已中断|进行中)$/,
    );
    await expect(detail.locator("dd [data-value]").nth(1)).toHaveText(/^(聊天抽屉|API|定时任务)$/);
    await page.goto("/dev/admin/members");
    await expect(
      page.locator('[data-schema-key="admin-members"] td[data-field="role"]').first(),
    ).toBeVisible();
    const roles = await page
      .locator('[data-schema-key="admin-members"] td[data-field="role"]')
      .allTextContents();
    expect(roles.length).toBeGreaterThan(0);
    for (const r of roles) expect(["管理员", "成员"]).toContain(r);
  });
});
