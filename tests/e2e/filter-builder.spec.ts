import { expect, type Page, test } from "@playwright/test";
import { openFilter, signInAs } from "./pages";
import { shotPath } from "./shots";

// The schema pages' filter bar (docs/guides/ledger.md, "Filters"): Add filter (field → operator → value), chips
// that edit and remove, time presets, the search box, and Back.

const rows = (page: Page) => page.getByTestId("data-row");
const bar = (page: Page) => page.getByTestId("filter-bar");
const chips = (page: Page) => bar(page).getByTestId("filter-chip");
const loaded = async (page: Page) => {
  await expect(page.locator("table")).toHaveAttribute("aria-busy", "false");
  await expect(rows(page).first()).toBeVisible();
};
const models = (page: Page) => rows(page).locator('td[data-field="servedModel"]').allTextContents();
/** Whether the page scrolls sideways (the bar must wrap, not push the page wider). */
const overflows = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth);

test.describe("the filter builder", () => {
  // Long walks through the bar, each step a navigation: more than the default 30 s on a busy machine.
  test.setTimeout(150_000);
  test("at 1280 × 800: add, edit and remove a filter; a preset; the search box; Back", async ({ page }) => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await signInAs(page, "admin@acme.test");
    await page.goto("/dev/agent/turns");
    await loaded(page);
    // Compact: the whole bar is one row before any filter is on.
    expect((await bar(page).boundingBox())!.height).toBeLessThan(60);
    const all = new Set(await models(page));
    expect([...all].some((m) => m.includes("gpt"))).toBe(true);

    // Field → operator → value: "Model is not gpt" leaves only the other models.
    await page.getByTestId("filter-add").click();
    // Keyboard: the focus is in the editor, on the field.
    await expect(page.getByTestId("filter-field")).toBeFocused();
    await page.getByTestId("filter-field").selectOption("servedModel");
    await page.getByTestId("filter-op").selectOption("not");
    await page.getByTestId("filter-servedModel").fill("gpt");
    await page.getByTestId("filter-apply").click();
    await expect(page).toHaveURL((url) => url.searchParams.get("f.servedModel.not") === "gpt");
    await expect(page.getByTestId("filter-editor")).toHaveCount(0);
    await expect(chips(page)).toHaveCount(1);
    await expect(chips(page)).toHaveText(/Model is not gpt/);
    await expect.poll(async () => (await models(page)).every((m) => !m.includes("gpt"))).toBe(true);
    await loaded(page);

    // Click the chip to edit it: "contains" instead; the chip is replaced, not added to.
    await chips(page).getByTestId("filter-chip-edit").click();
    await expect(page.getByTestId("filter-servedModel")).toHaveValue("gpt");
    await page.getByTestId("filter-op").selectOption("contains");
    await page.getByTestId("filter-servedModel").press("Enter");
    await expect(page).toHaveURL(
      (url) => url.searchParams.get("f.servedModel") === "gpt" && !url.searchParams.has("f.servedModel.not"),
    );
    await expect(chips(page)).toHaveCount(1);
    await expect(chips(page)).toHaveText(/Model contains gpt/);
    await expect.poll(async () => (await models(page)).every((m) => m.includes("gpt"))).toBe(true);

    // A number filter with between: two ends in the URL, one chip.
    await openFilter(page, "latencyMs", "between");
    await page.getByTestId("filter-latencyMs-min").fill("abc");
    await page.getByTestId("filter-apply").click();
    await expect(page.getByTestId("filter-problem")).toBeVisible();
    await page.getByTestId("filter-latencyMs-min").fill("0");
    await page.getByTestId("filter-latencyMs-max").fill("600000");
    await page.getByTestId("filter-apply").click();
    await expect(page).toHaveURL(
      (url) =>
        url.searchParams.get("f.latencyMs.gte") === "0" &&
        url.searchParams.get("f.latencyMs.lte") === "600000",
    );
    await expect(chips(page)).toHaveCount(2);
    await expect(chips(page).nth(1)).toHaveText(/Latency \(ms\) between 0 and 600000/);

    // A time preset: an open range from an instant, as a chip.
    await bar(page).getByTestId("preset-startedAt-7d").click();
    await expect(page).toHaveURL((url) => url.searchParams.has("f.startedAt.from"));
    await expect(bar(page).locator('[data-testid="filter-chip"][data-name="startedAt.from"]')).toBeVisible();
    await loaded(page);
    // Two rows at most with three chips.
    expect((await bar(page).boundingBox())!.height).toBeLessThan(100);
    await page.getByTestId("filter-add").click();
    await page.getByTestId("filter-field").selectOption("source");
    await page.screenshot({ path: shotPath("filter-builder") });
    // Escape closes the editor and gives the focus back to "Add filter".
    await page.keyboard.press("Escape");
    await expect(page.getByTestId("filter-editor")).toHaveCount(0);
    await expect(page.getByTestId("filter-add")).toBeFocused();

    // × removes one filter.
    await bar(page)
      .locator('[data-testid="filter-chip"][data-name="latencyMs.gte"]')
      .getByTestId("filter-chip-remove")
      .click();
    await expect(page).toHaveURL((url) => !url.searchParams.has("f.latencyMs.gte"));
    await expect(chips(page)).toHaveCount(2);

    // The search box offers one entry per filter; Enter applies the first ("Model contains …").
    await page.getByTestId("filter-clear").click();
    await expect(chips(page)).toHaveCount(0);
    await page.getByTestId("filter-search").fill("claude");
    const entries = page.getByTestId("filter-search-entry");
    await expect(entries.first()).toHaveText("Model contains claude");
    await expect(entries.filter({ hasText: "User (email) contains claude" })).toHaveCount(1);
    await page.getByTestId("filter-search").press("Enter");
    await expect(page).toHaveURL((url) => url.searchParams.get("f.servedModel") === "claude");
    await expect(chips(page)).toHaveText(/Model contains claude/);
    await expect.poll(async () => (await models(page)).every((m) => m.includes("claude"))).toBe(true);

    // Back restores the filters before it (none), chips and rows with them.
    await page.goBack();
    await expect(page).toHaveURL((url) => !url.searchParams.has("f.servedModel"));
    await expect(chips(page)).toHaveCount(0);
    await expect.poll(async () => new Set(await models(page)).size).toBe(all.size);
  });

  test("at 360 px the bar wraps without widening the page; links' filters show as chips", async ({
    page,
  }) => {
    await page.setViewportSize({ width: 360, height: 780 });
    await signInAs(page, "admin@acme.test");
    // A link's filter (as the home's tiles make them) is a chip like any other.
    await page.goto("/dev/agent/turns?f.costStatus=priced");
    await loaded(page);
    await expect(chips(page)).toHaveText(/Pric.* is Priced/);
    await openFilter(page, "latencyMs", "gt");
    await page.getByTestId("filter-latencyMs").fill("0");
    await page.getByTestId("filter-apply").click();
    await expect(page).toHaveURL((url) => url.searchParams.get("f.latencyMs.gt") === "0");
    await expect(chips(page)).toHaveCount(2);
    expect(await overflows(page)).toBe(false);
    await page.getByTestId("filter-add").click();
    await page.getByTestId("filter-field").selectOption("servedModel");
    expect(await overflows(page)).toBe(false);
    const editor = (await page.getByTestId("filter-editor").boundingBox())!;
    expect(editor.x).toBeGreaterThanOrEqual(0);
    expect(editor.x + editor.width).toBeLessThanOrEqual(360);
    await page.screenshot({ path: shotPath("filter-builder-360") });
    await page.keyboard.press("Escape");

    // The runs page takes the same bar: a number filter on the runs' totals.
    await page.goto("/dev/agent/runs");
    await expect(bar(page)).toBeVisible();
    await openFilter(page, "calls", "gt");
    await page.getByTestId("filter-calls").fill("0");
    await page.getByTestId("filter-calls").press("Enter");
    await expect(page).toHaveURL((url) => url.searchParams.get("f.calls.gt") === "0");
    await expect(chips(page)).toHaveText(/Calls > 0/);
    expect(await overflows(page)).toBe(false);
  });
});
