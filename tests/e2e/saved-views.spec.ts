import { type Browser, expect, type Page, test } from "@playwright/test";
import { openFilter, signInAs, TopBar } from "./pages";
import { shotPath } from "./shots";

const LEDGER = "/dev/agent/turns";

/** The ledger's Views menu and Columns picker, as a user works them. */
class LedgerViews {
  constructor(readonly page: Page) {}
  menu = () => this.page.getByTestId("views-menu");
  current = () => this.page.getByTestId("views-current");
  option = (name: string) => this.menu().locator(`[data-testid="view-option"][data-view-name="${name}"]`);
  headers = () => this.page.locator("thead th[data-field]");

  async openMenu() {
    if (!(await this.menu().evaluate((d) => (d as HTMLDetailsElement).open)))
      await this.page.getByTestId("views-menu-toggle").click();
  }
  async openColumns() {
    const picker = this.page.getByTestId("column-picker");
    if (!(await picker.evaluate((d) => (d as HTMLDetailsElement).open)))
      await this.page.getByTestId("column-picker-toggle").click();
  }
  async saveAs(name: string, opts: { share?: boolean; makeDefault?: boolean } = {}) {
    await this.openMenu();
    await this.page.getByTestId("view-save-as").click();
    await this.page.getByTestId("view-name").fill(name);
    if (opts.share) await this.page.getByTestId("view-share").check();
    if (opts.makeDefault) await this.page.getByTestId("view-make-default").check();
    await this.page.getByTestId("view-save").click();
    await expect(this.page.getByTestId("views-note")).toHaveText(`Saved “${name}”.`);
    await expect(this.current()).toHaveText(`View: ${name}`);
  }
  async pick(name: string) {
    await this.openMenu();
    await this.option(name).click();
    await expect(this.current()).toHaveText(`View: ${name}`);
  }
  /** Filters the ledger by its source, through the filter builder. */
  async filterSource(value: string) {
    await openFilter(this.page, "source");
    await this.page.getByTestId("filter-source").selectOption(value);
    await this.page.getByTestId("filter-apply").click();
    await expect(this.page).toHaveURL((u) => u.searchParams.get("f.source") === value);
  }
}

/** Deletes the views a test made (a default left behind would change what other specs see on the ledger). */
async function deleteViews(page: Page, names: string[]) {
  const origin = new URL(page.url()).origin;
  const { views } = await (await page.request.get(`/api/views?page=agent-turns`)).json();
  for (const view of views as { id: string; name: string }[])
    if (names.includes(view.name))
      expect((await page.request.delete(`/api/views/${view.id}`, { headers: { origin } })).status()).toBe(
        204,
      );
}

async function session(browser: Browser, baseURL: string, email: string, width: number, height: number) {
  const context = await browser.newContext({ baseURL, viewport: { width, height } });
  const page = await context.newPage();
  await signInAs(page, email);
  return { context, page };
}

test.describe("saved views and columns on the ledger", () => {
  for (const view of [
    { shot: "saved-views", width: 1280, height: 800 },
    { shot: "saved-views-360", width: 360, height: 780 },
  ]) {
    test(`filter, arrange columns, save and share a view, and open with a default (${view.width} px)`, async ({
      browser,
      baseURL,
    }) => {
      test.setTimeout(120_000);
      const stamp = `${view.width}-${Date.now().toString(36)}`;
      const shared = `API calls ${stamp}`;
      const own = `Failures ${stamp}`;
      const admin = await session(browser, baseURL!, "admin@globex.test", view.width, view.height);
      const page = admin.page;
      const views = new LedgerViews(page);
      try {
        await page.goto(LEDGER);
        await expect(views.current()).toHaveText("View: Default");
        await views.filterSource("api");

        // Hide Served model, pin Status (it moves to the left edge), move Cost up one place.
        await views.openColumns();
        await page.getByTestId("column-toggle-servedModel").uncheck();
        await page.getByTestId("column-pin-status").click();
        await expect(page.getByTestId("column-pin-status")).toHaveAttribute("aria-pressed", "true");
        await page.getByTestId("column-up-cost").focus();
        await page.keyboard.press("Enter");
        await page.keyboard.press("Escape");
        const order = await views
          .headers()
          .evaluateAll((ths) => ths.map((th) => th.getAttribute("data-field")));
        expect(order[0]).toBe("status");
        expect(order).not.toContain("servedModel");
        expect(order.indexOf("cost")).toBe(order.indexOf("outputTokens") - 1);
        await expect(page.locator('thead th[data-field="status"]')).toHaveAttribute("data-pinned", "true");

        await views.saveAs(shared, { share: true });
        await expect(views.option(shared).getByTestId("view-shared")).toHaveText("Shared");
        if (view.width === 1280) await page.screenshot({ path: shotPath(view.shot) });

        // A fresh start (no remembered columns, no filter in the URL), then the view brings it all back.
        await page.evaluate(() => window.localStorage.clear());
        await page.goto(LEDGER);
        await expect(page.locator('thead th[data-field="servedModel"]')).toHaveCount(1);
        await views.pick(shared);
        await expect(page).toHaveURL((u) => u.searchParams.get("f.source") === "api");
        await expect(page.locator('thead th[data-field="servedModel"]')).toHaveCount(0);
        await expect(views.headers().first()).toHaveAttribute("data-field", "status");
        await page.reload();
        await expect(page).toHaveURL((u) => u.searchParams.get("f.source") === "api");
        await expect(views.headers().first()).toHaveAttribute("data-field", "status");
        await expect(page.locator('thead th[data-field="servedModel"]')).toHaveCount(0);

        // Another admin of Globex sees the shared view and takes it.
        const other = await session(browser, baseURL!, "multi@tollgate.test", view.width, view.height);
        try {
          await new TopBar(other.page).switchTenant("Globex");
          await expect(new TopBar(other.page).activeTenant()).toHaveText("Globex");
          await other.page.goto(LEDGER);
          const theirs = new LedgerViews(other.page);
          await theirs.openMenu();
          await expect(theirs.option(shared).getByTestId("view-shared")).toBeVisible();
          await theirs.pick(shared);
          await expect(other.page).toHaveURL((u) => u.searchParams.get("f.source") === "api");
          await expect(theirs.headers().first()).toHaveAttribute("data-field", "status");

          // Their own default: the failed calls. The bare ledger opens with it (the URL replaced, not pushed).
          await other.page.goto(`${LEDGER}?segment=failed`);
          await theirs.saveAs(own, { makeDefault: true });
          await other.page.goto(LEDGER);
          await expect(other.page).toHaveURL((u) => u.searchParams.get("segment") === "failed");
          await expect(theirs.current()).toHaveText(`View: ${own}`);
          if (view.width === 360) {
            await theirs.openMenu();
            await other.page.screenshot({ path: shotPath(view.shot) });
            await other.page.keyboard.press("Escape");
          }
          // A URL that says what to show wins over the default.
          await other.page.goto(`${LEDGER}?f.source=drawer`);
          await expect(theirs.current()).toHaveText("View: Default");
          await expect(other.page).toHaveURL((u) => u.searchParams.get("segment") === null);
          await deleteViews(other.page, [own]);
        } finally {
          await other.context.close();
        }
        // Their default is theirs: this admin's bare ledger stays as it is.
        await page.goto(LEDGER);
        await expect(views.current()).toHaveText("View: Default");
        await expect(page).toHaveURL((u) => u.search === "");
      } finally {
        await deleteViews(page, [shared]);
        await admin.context.close();
      }
    });
  }

  test("pinned columns stay on the left while the table scrolls sideways", async ({ browser, baseURL }) => {
    const { context, page } = await session(browser, baseURL!, "admin@acme.test", 1280, 800);
    try {
      await page.goto(LEDGER);
      const views = new LedgerViews(page);
      await views.openColumns();
      await page.getByTestId("column-toggle-feedback").check();
      await page.getByTestId("column-pin-startedAt").click();
      await page.getByTestId("column-pin-caller").click();
      await page.keyboard.press("Escape");
      await expect(page.getByTestId("data-row").first()).toBeVisible();
      const scroller = page.getByTestId("table-scroll");
      await page.setViewportSize({ width: 900, height: 800 });
      await scroller.evaluate((el) => {
        el.scrollLeft = el.scrollWidth;
      });
      const box = await scroller.boundingBox();
      const caller = await page.locator('thead th[data-field="caller"]').boundingBox();
      const started = await page.locator('thead th[data-field="startedAt"]').boundingBox();
      // Both pinned headers are still at the box's left edge, side by side.
      expect(Math.abs(started!.x - box!.x)).toBeLessThan(3);
      expect(Math.abs(caller!.x - (started!.x + started!.width))).toBeLessThan(3);
      const cell = page.locator('[data-testid="data-row"] td[data-field="caller"]').first();
      expect(await cell.evaluate((td) => getComputedStyle(td).backgroundColor)).not.toBe("rgba(0, 0, 0, 0)");
      await page.screenshot({ path: shotPath("ledger-pinned") });
      await views.openColumns();
      await page.getByTestId("column-picker-reset").click();
    } finally {
      await context.close();
    }
  });
});
