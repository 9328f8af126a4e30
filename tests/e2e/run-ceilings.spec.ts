import { expect, type Page, test } from "@playwright/test";
import { signInAs } from "./pages";

// The Limits page's run ceilings (features/limits/components/run-ceilings.tsx), as a tenant admin sets them:
// the tenant's in its form, a key's in the form under its row; each saved, and still there after a reload.

type Ceilings = {
  maxUsd: string | null;
  maxCalls: number | null;
  maxTokens: number | null;
  maxSeconds: number | null;
};
type Answer = { tenant: Ceilings | null; keys: { id: string; name: string; ceilings: Ceilings | null }[] };
const ceilingsOf = async (page: Page): Promise<Answer> =>
  (await page.request.get("/api/governance/run-ceilings")).json();

class RunCeilingsScreen {
  constructor(readonly page: Page) {}
  section() {
    return this.page.getByTestId("run-ceilings");
  }
  tenantForm() {
    return this.page.getByTestId("tenant-run-ceilings-form");
  }
  keyRow(id: string) {
    return this.page.locator(`[data-testid="key-run-ceiling-row"][data-key-id="${id}"]`);
  }
  async goto() {
    await this.page.goto("/dev/admin/limits");
    await expect(this.tenantForm()).toBeVisible();
    await expect(this.page.getByTestId("key-run-ceilings")).toHaveAttribute("aria-busy", "false");
  }
}

test.describe("run ceilings on the Limits page", () => {
  test("an admin sets the tenant's run ceilings and a key's, and both are kept after a reload", async ({
    page,
  }) => {
    await signInAs(page, "admin@acme.test");
    const name = `e2e run ceilings ${Date.now()}`;
    const made = await page.request.post("/api/keys", { data: { name } });
    const keyId = ((await made.json()) as { key: { id: string } }).key.id;
    const screen = new RunCeilingsScreen(page);
    try {
      await screen.goto();

      // The tenant's: generous, since the suite's other runs share the tenant while this test runs.
      const tenant = screen.tenantForm();
      await tenant.getByTestId("run-maxUsd").fill("40");
      await tenant.getByTestId("run-maxCalls").fill("2.5");
      await tenant.getByTestId("run-ceilings-save").click();
      // A count that is not whole is refused at its field, before anything is sent.
      await expect(tenant.getByTestId("field-error-maxCalls")).toBeVisible();
      expect((await ceilingsOf(page)).tenant).toBeNull();
      await tenant.getByTestId("run-maxCalls").fill("500");
      await tenant.getByTestId("run-ceilings-save").click();
      await expect(tenant.getByTestId("saved-note")).toContainText("Saved");

      await screen.goto();
      await expect(tenant.getByTestId("run-maxUsd")).toHaveValue("40");
      await expect(tenant.getByTestId("run-maxCalls")).toHaveValue("500");
      await expect(tenant.getByTestId("run-maxTokens")).toHaveValue("");
      expect((await ceilingsOf(page)).tenant).toMatchObject({
        maxCalls: 500,
        maxTokens: null,
        maxSeconds: null,
      });

      // A key's, in the form under its row; the row sums them up.
      const row = screen.keyRow(keyId);
      await expect(row).toContainText("—");
      await row.getByRole("button", { name: `Edit the run ceilings of ${name}` }).click();
      const keyForm = page.getByTestId("key-run-ceilings-form");
      await keyForm.getByTestId("run-maxTokens").fill("100000");
      await keyForm.getByTestId("run-maxSeconds").fill("600");
      await keyForm.getByTestId("run-ceilings-save").click();
      await expect(keyForm.getByTestId("saved-note")).toContainText("Saved");
      await expect(row).toContainText("100,000 tokens · 600 s");

      await screen.goto();
      await expect(screen.keyRow(keyId)).toContainText("100,000 tokens · 600 s");
      const stored = (await ceilingsOf(page)).keys.find((k) => k.id === keyId);
      expect(stored?.ceilings).toMatchObject({
        maxUsd: null,
        maxCalls: null,
        maxTokens: 100000,
        maxSeconds: 600,
      });

      // At 360 px the section fits: neither the page nor the key table scrolls sideways.
      await page.setViewportSize({ width: 360, height: 780 });
      await screen.goto();
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
      const table = page.getByTestId("key-run-ceilings").locator("..");
      expect(await table.evaluate((e) => e.scrollWidth - e.clientWidth)).toBeLessThanOrEqual(0);
    } finally {
      // The suite shares one database: later runs must not be held to these ceilings.
      await page.request.put("/api/governance/run-ceilings", { data: { scope: "tenant" } });
      await page.request.delete(`/api/keys/${keyId}`);
    }
  });
});
