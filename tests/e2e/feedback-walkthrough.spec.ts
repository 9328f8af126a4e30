import { type APIRequestContext, expect, test } from "@playwright/test";
import { FAKE_UPSTREAM } from "../../playwright.config";
import { Drawer, openFilter, signInAs } from "./pages";

const enqueue = (request: APIRequestContext, ...replies: unknown[]) =>
  request.post(`${FAKE_UPSTREAM}/__control/enqueue`, { data: { replies } });

// From a member's 👎 in the drawer to the tenant admin finding that turn on the ledger and reading the comment.
test.describe("feedback from the drawer to the ledger", () => {
  test.beforeEach(async ({ request }) => {
    await request.post(`${FAKE_UPSTREAM}/__control/reset`);
  });

  test("a member's thumbs down with a comment shows on the admin's ledger, filtered, and in the replay", async ({
    browser,
    baseURL,
    request,
  }) => {
    test.setTimeout(90_000);
    const comment = `Wrong refund window ${Date.now().toString(36)}`;
    const member = await browser.newContext({ baseURL, viewport: { width: 1280, height: 800 } });
    let turnId = "";
    try {
      const page = await member.newPage();
      await signInAs(page, "member@acme.test");
      const drawer = new Drawer(page);
      await drawer.open();
      await page.getByTestId("agent-new-conversation").click();
      await drawer.chooseModel("gpt-fake");
      await enqueue(request, { kind: "text", text: "Refunds take 30 working days." });
      await drawer.send("How long do refunds take?");
      await expect(drawer.assistant().last()).toHaveText("Refunds take 30 working days.");
      const turn = page.getByTestId("agent-turn").last();
      turnId = (await turn.getAttribute("data-turn-id")) ?? "";
      expect(turnId).not.toBe("");
      await turn.getByTestId("agent-feedback-down").click();
      const box = turn.getByTestId("agent-feedback-comment");
      await box.fill(comment);
      await box.press("Enter");
      await expect(turn.getByTestId("agent-feedback-note")).toHaveText(`Your comment: ${comment}`);
    } finally {
      await member.close();
    }

    const admin = await browser.newContext({ baseURL, viewport: { width: 1280, height: 800 } });
    try {
      const page = await admin.newPage();
      await signInAs(page, "admin@acme.test");
      await page.goto("/dev/agent/turns");
      // Feedback is opt-in: the Columns menu shows it.
      await expect(page.locator('thead th[data-field="feedback"]')).toHaveCount(0);
      await page.getByTestId("column-picker-toggle").click();
      await page.getByTestId("column-toggle-feedback").check();
      await page.keyboard.press("Escape");
      await expect(page.locator('thead th[data-field="feedback"]')).toHaveCount(1);

      // Thumbs down only, through the filter builder.
      await openFilter(page, "feedback");
      await page.getByTestId("filter-feedback").selectOption("down");
      await page.getByTestId("filter-apply").click();
      await expect(page).toHaveURL((u) => u.searchParams.get("f.feedback") === "down");
      const row = page.locator(`[data-testid="data-row"][data-row-id="${turnId}"]`);
      await expect(row).toBeVisible();
      await expect(row.locator('td[data-field="feedback"]')).toContainText("👎");
      for (const cell of await page.locator('[data-testid="data-row"] td[data-field="feedback"]').all())
        await expect(cell).toContainText("👎");

      // Its replay shows the vote with the comment.
      await row.getByTestId("row-link-replay").click();
      await expect(page).toHaveURL((u) => u.pathname === `/dev/agent/audit/${turnId}`);
      const score = page.getByTestId("replay-score").filter({ hasText: comment });
      await expect(score.getByTestId("replay-score-value")).toHaveText("👎");
      await expect(score).toContainText(`“${comment}”`);
      // The column choice is this admin's, remembered: back on the ledger it is still shown.
      await page.goto("/dev/agent/turns");
      await expect(page.locator('thead th[data-field="feedback"]')).toHaveCount(1);
      await page.getByTestId("column-picker-toggle").click();
      await page.getByTestId("column-picker-reset").click();
    } finally {
      await admin.close();
    }
  });
});
