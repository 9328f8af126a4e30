import { expect, type Page, test } from "@playwright/test";
import { signInAs, TopBar } from "./pages";
import { shotPath } from "./shots";

// The screenshot test runs every time (into test-results/screens); E2E_SCREENSHOTS=1 refreshes the README's.
async function shot(page: Page, name: string) {
  // From the top, so the sticky top bar is where a reader sees it.
  await page.evaluate(() => window.scrollTo(0, 0));
  // Every run renders the screens at each width and theme; only E2E_SCREENSHOTS=1 replaces the README's images.
  await page.screenshot({ path: shotPath(name), fullPage: true });
}

/** The admin screens, as a tenant admin uses them. */
class KeysScreen {
  constructor(readonly page: Page) {}
  async goto() {
    await this.page.goto("/dev/admin/keys");
    await expect(this.page.getByTestId("keys-table")).toHaveAttribute("aria-busy", "false");
  }
  row(name: string) {
    return this.page.locator(`[data-testid="key-row"][data-key-name="${name}"]`);
  }
  /** Opens the key's actions (one small toggle in its row) and gives the line they show in, under the row. */
  async actions(name: string) {
    await this.row(name).getByTestId("key-actions-toggle").click();
    const line = this.page.locator(`[data-testid="key-actions-row"][data-key-name="${name}"]`);
    await expect(line).toBeVisible();
    return line;
  }
  async create(name: string) {
    await this.page.getByTestId("create-key-name").fill(name);
    await this.page.getByTestId("create-key-submit").click();
  }
}

class LimitsScreen {
  constructor(readonly page: Page) {}
  tenantForm() {
    return this.page.getByTestId("tenant-limits-form");
  }
  async goto() {
    await this.page.goto("/dev/admin/limits");
    await expect(this.tenantForm()).toBeVisible();
  }
}

type Settings = {
  tenantLimits: { dailyHardUsd: string | null; dailySoftUsd: string | null } | null;
  keys: { id: string; limits: { requestsPerMinute: number | null } | null }[];
};
const settingsOf = async (page: Page): Promise<Settings> =>
  (await page.request.get("/api/governance/settings")).json();

test.describe("the tenant admin screens for keys, limits and budgets", () => {
  test("an admin creates a key, sees its secret once, limits it and revokes it", async ({ page }) => {
    await signInAs(page, "admin@acme.test");
    await new TopBar(page).openFromMenu("admin", "Keys");
    const keys = new KeysScreen(page);
    await expect(page.getByTestId("keys-table")).toHaveAttribute("aria-busy", "false");

    // An empty name is refused by the server, and its message is said under the field.
    await keys.create("");
    await expect(page.getByTestId("field-error-name")).toContainText("name the key");
    await expect(page.getByTestId("create-key-name")).toHaveAttribute("aria-invalid", "true");

    const name = `e2e governance ${Date.now()}`;
    await keys.create(name);
    const panel = page.getByTestId("key-secret-panel");
    await expect(panel).toBeVisible();
    await expect(panel).toContainText("You will not see it again");
    const secret = (await page.getByTestId("key-secret").textContent()) ?? "";
    expect(secret).toMatch(/^tg_[\w-]{20,}$/);
    await expect(page.getByTestId("field-error-name")).toHaveCount(0);
    await expect(keys.row(name).getByTestId("key-status")).toHaveAttribute("data-status", "active");
    await expect(keys.row(name).getByTestId("key-prefix")).toHaveText(`${secret.slice(0, 10)}…`);
    await expect(page.getByTestId("how-to-call-env")).toContainText(
      `OPENAI_BASE_URL=${new URL(page.url()).origin}/v1`,
    );
    await expect(page.getByTestId("how-to-call-curl")).toContainText("/v1/chat/completions");
    await shot(page, "admin-keys");

    // After a reload the secret is gone for good; the key is listed by its prefix.
    await keys.goto();
    await expect(page.getByTestId("key-secret-panel")).toHaveCount(0);
    expect(await page.content()).not.toContain(secret);
    await expect(keys.row(name)).toBeVisible();

    // A per-key rate limit, saved and shown in the list after a reload.
    await (await keys.actions(name)).getByTestId("key-limits-toggle").click();
    const form = page.getByTestId("key-limits-form");
    await form.getByTestId("limit-requestsPerMinute").fill("30");
    await form.getByTestId("limits-save").click();
    await expect(form.getByTestId("saved-note")).toContainText("Saved");
    await keys.goto();
    await expect(keys.row(name).getByTestId("key-limits-summary")).toHaveText("30 req/min");
    const id = await keys.row(name).getAttribute("data-key-id");
    const stored = (await settingsOf(page)).keys.find((k) => k.id === id);
    expect(stored?.limits?.requestsPerMinute).toBe(30);

    // Revoking asks first, then the key shows as revoked (and stays so after a reload).
    const actions = await keys.actions(name);
    await actions.getByTestId("key-revoke").click();
    await expect(keys.row(name).getByTestId("key-status")).toHaveAttribute("data-status", "active");
    await actions.getByTestId("key-revoke-confirm").click();
    await expect(keys.row(name).getByTestId("key-status")).toHaveAttribute("data-status", "revoked");
    await keys.goto();
    await expect(keys.row(name).getByTestId("key-status")).toHaveAttribute("data-status", "revoked");
    // A revoked key has no actions left to open.
    await expect(keys.row(name).getByTestId("key-actions-toggle")).toHaveCount(0);
    // With revoked and last-used dates in it, the table still fits its box at 1280 px: nothing to scroll sideways.
    await page.setViewportSize({ width: 1280, height: 800 });
    const box = page.getByTestId("keys-table").locator("..");
    expect(await box.evaluate((e) => e.scrollWidth - e.clientWidth)).toBeLessThanOrEqual(0);
    expect(
      (await page.request.get("/v1/models", { headers: { authorization: `Bearer ${secret}` } })).status(),
    ).toBe(401);
  });

  test("a tenant daily hard budget persists, and a soft budget above it is refused at the field", async ({
    page,
  }) => {
    await signInAs(page, "admin@acme.test");
    const limits = new LimitsScreen(page);
    await limits.goto();
    try {
      const form = limits.tenantForm();
      await form.getByTestId("limit-dailyHardUsd").fill("25");
      await form.getByTestId("limits-save").click();
      await expect(form.getByTestId("saved-note")).toContainText("Saved");
      await expect(form.getByTestId("spent-today")).toContainText("of $25.00");

      await limits.goto();
      await expect(form.getByTestId("limit-dailyHardUsd")).toHaveValue("25");
      expect(Number((await settingsOf(page)).tenantLimits?.dailyHardUsd)).toBe(25);

      await form.getByTestId("limit-dailySoftUsd").fill("30");
      await form.getByTestId("limits-save").click();
      await expect(form.getByTestId("field-error-dailySoftUsd")).toContainText("cannot be above");
      await expect(form.getByTestId("limit-dailySoftUsd")).toHaveAttribute("aria-invalid", "true");
      await expect(form.getByTestId("saved-note")).toHaveText("");
      expect((await settingsOf(page)).tenantLimits?.dailySoftUsd).toBeNull();
    } finally {
      // The suite shares one database: later tests must not run under this budget.
      await page.request.put("/api/governance/limits", { data: { scope: "tenant" } });
    }
  });

  test("retention and the response cache are saved; an out-of-range value is refused at the field", async ({
    page,
  }) => {
    await signInAs(page, "admin@acme.test");
    await page.goto("/dev/admin/limits");
    const form = page.getByTestId("tenant-settings-form");
    const before = await (await page.request.get("/api/governance/settings")).json();
    try {
      await form.getByTestId("settings-retentionDays").fill("0");
      await form.getByTestId("settings-save").click();
      await expect(form.getByTestId("field-error-retentionDays")).toContainText("at least 1 day");

      await form.getByTestId("settings-retentionDays").fill("45");
      await form.locator('[data-testid="cache-alias"][value="offline-demo"]').check();
      await form.getByTestId("settings-cacheTtlSeconds").fill("600");
      await form.getByTestId("settings-save").click();
      await expect(form.getByTestId("saved-note")).toContainText("Saved");
      await page.reload();
      await expect(form.getByTestId("settings-retentionDays")).toHaveValue("45");
      await expect(form.locator('[data-testid="cache-alias"][value="offline-demo"]')).toBeChecked();
      await expect(form.getByTestId("settings-cacheTtlSeconds")).toHaveValue("600");
    } finally {
      const { retentionDays, cacheAliases, cacheTtlSeconds } = before;
      await page.request.put("/api/governance/settings", {
        data: { retentionDays, cacheAliases, cacheTtlSeconds },
      });
    }
  });

  test("screenshots of the limits screen, light, dark and 360 px wide", async ({ page }) => {
    test.setTimeout(90_000);
    await signInAs(page, "admin@acme.test");
    const limits = new LimitsScreen(page);
    const data = { scope: "tenant", dailySoftUsd: "20", dailyHardUsd: "25", monthlyHardUsd: "400" };
    expect((await page.request.put("/api/governance/limits", { data })).status()).toBe(200);
    try {
      const open = async () => {
        await limits.goto();
        await expect(limits.tenantForm().getByTestId("spent-month")).toContainText("of $400.00");
        await page.getByTestId("member-limits-toggle").first().click();
        await expect(page.getByTestId("member-limits-form")).toBeVisible();
      };
      await open();
      await shot(page, "admin-limits");
      await page.emulateMedia({ colorScheme: "dark" });
      await open();
      await shot(page, "admin-limits-dark");
      await page.setViewportSize({ width: 360, height: 740 });
      await open();
      await shot(page, "admin-limits-mobile-dark");
      await page.emulateMedia({ colorScheme: "light" });
      const keys = new KeysScreen(page);
      await keys.goto();
      await keys.create("mobile app");
      await expect(page.getByTestId("key-secret-panel")).toBeVisible();
      await (await keys.actions("mobile app")).getByTestId("key-limits-toggle").click();
      await shot(page, "admin-keys-mobile");
    } finally {
      await page.request.put("/api/governance/limits", { data: { scope: "tenant" } });
    }
  });

  for (const path of ["/dev/admin/keys", "/dev/admin/limits"]) {
    test(`a member gets the 403 page at ${path}`, async ({ page }) => {
      await signInAs(page, "member@acme.test");
      await expect(page.getByTestId("nav-menu-admin")).toHaveCount(0);
      const res = await page.goto(path);
      expect(res?.status()).toBe(403);
      await expect(page.getByTestId("forbidden")).toBeVisible();
    });
  }
});
