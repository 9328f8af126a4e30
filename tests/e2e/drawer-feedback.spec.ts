import { type APIRequestContext, expect, type Page, test } from "@playwright/test";
import { FAKE_UPSTREAM } from "../../playwright.config";
import { Drawer, signInAs } from "./pages";
import { shotPath } from "./shots";

const enqueue = (request: APIRequestContext, ...replies: unknown[]) =>
  request.post(`${FAKE_UPSTREAM}/__control/enqueue`, { data: { replies } });

/** The signed-in user's vote on a turn, as the turn's ledger row answers it (what the ledger shows). */
const storedVote = async (page: Page, turnId: string) =>
  (await (await page.request.get(`/api/agent/turns/${turnId}`)).json()).feedback;

// Thumbs up / down with an optional comment on an answer in the drawer: saved at once, shown pressed after a reload,
// changeable, and stored as the user's own vote on the turn's ledger row.
test.describe("feedback on an answer in the drawer", () => {
  test.beforeEach(async ({ request }) => {
    await request.post(`${FAKE_UPSTREAM}/__control/reset`);
  });

  for (const view of [
    { name: "drawer-feedback", width: 1280, height: 800 },
    { name: "drawer-feedback-360", width: 360, height: 780 },
  ]) {
    test(`vote down with a comment, see it after a reload, change it to up (${view.width} px)`, async ({
      page,
      request,
    }) => {
      test.setTimeout(60_000);
      await page.setViewportSize({ width: view.width, height: view.height });
      await signInAs(page, "member@acme.test");
      const drawer = new Drawer(page);
      await drawer.open();
      await page.getByTestId("agent-new-conversation").click();
      await drawer.chooseModel("gpt-fake");
      await enqueue(request, { kind: "text", text: "Refunds take 30 working days." });
      // A word of its own, to find the conversation again in the history.
      const word = `refundwindow${Date.now().toString(36)}`;
      await drawer.send(`How long do refunds take? (${word})`);
      await expect(drawer.assistant().last()).toHaveText("Refunds take 30 working days.");

      const turn = page.getByTestId("agent-turn").last();
      const turnId = (await turn.getAttribute("data-turn-id")) ?? "";
      expect(turnId).not.toBe("");
      const up = turn.getByTestId("agent-feedback-up");
      const down = turn.getByTestId("agent-feedback-down");
      await expect(up).toHaveAttribute("aria-pressed", "false");
      await expect(down).toHaveAttribute("aria-pressed", "false");
      await expect(down).toHaveAccessibleName("Bad answer");

      // Down, then the comment box that opens under the answer.
      await down.click();
      await expect(down).toHaveAttribute("aria-pressed", "true");
      const comment = turn.getByTestId("agent-feedback-comment");
      await expect(comment).toBeFocused();
      await comment.fill("It says 30 days; the policy says 5.");
      await comment.press("Enter");
      await expect(comment).toHaveCount(0);
      await expect(turn.getByTestId("agent-feedback-note")).toHaveText(
        "Your comment: It says 30 days; the policy says 5.",
      );
      expect(await storedVote(page, turnId)).toMatchObject({
        value: "down",
        comment: "It says 30 days; the policy says 5.",
      });
      await page.screenshot({ path: shotPath(view.name) });

      // After a reload the vote and its comment are back.
      await page.reload();
      // The drawer reopens by itself after a reload (a click on the toggle would close it again).
      await expect(drawer.panel()).toBeVisible();
      const again = page.locator(`[data-testid="agent-turn"][data-turn-id="${turnId}"]`);
      await expect(again.getByTestId("agent-feedback-down")).toHaveAttribute("aria-pressed", "true");
      await expect(again.getByTestId("agent-feedback-up")).toHaveAttribute("aria-pressed", "false");
      await expect(again.getByTestId("agent-feedback-note")).toContainText("the policy says 5.");

      // Up instead: the comment stays; Escape closes the box that opens, not the drawer.
      await again.getByTestId("agent-feedback-up").click();
      await expect(again.getByTestId("agent-feedback-up")).toHaveAttribute("aria-pressed", "true");
      await expect(again.getByTestId("agent-feedback-down")).toHaveAttribute("aria-pressed", "false");
      await expect(again.getByTestId("agent-feedback-comment")).toBeFocused();
      await page.keyboard.press("Escape");
      await expect(again.getByTestId("agent-feedback-comment")).toHaveCount(0);
      await expect(drawer.panel()).toBeVisible();
      await expect(again.getByTestId("agent-feedback-comment-open")).toBeFocused();
      await expect
        .poll(() => storedVote(page, turnId))
        .toMatchObject({ value: "up", comment: "It says 30 days; the policy says 5." });

      // Away to a new conversation and back through the history: the vote is looked up again.
      if (view.width >= 1280) {
        await page.getByTestId("agent-new-conversation").click();
        await expect(again).toHaveCount(0);
        await page.getByTestId("agent-conversations-toggle").click();
        await page.getByTestId("agent-history-search").fill(word);
        const found = page.getByTestId("agent-conversation-item");
        await expect(found).toHaveCount(1);
        await found.getByTestId("agent-conversation-open").click();
        await expect(again.getByTestId("agent-feedback-up")).toHaveAttribute("aria-pressed", "true");
      }

      // Pressing the pressed thumb takes the vote back.
      await again.getByTestId("agent-feedback-up").click();
      await expect(again.getByTestId("agent-feedback-up")).toHaveAttribute("aria-pressed", "false");
      await expect.poll(() => storedVote(page, turnId)).toBeNull();
    });
  }

  test("a vote that cannot be saved rolls back and says why", async ({ page, request }) => {
    await signInAs(page, "member@acme.test");
    const drawer = new Drawer(page);
    await drawer.open();
    await page.getByTestId("agent-new-conversation").click();
    await drawer.chooseModel("gpt-fake");
    await enqueue(request, { kind: "text", text: "An answer." });
    await drawer.send("anything");
    await expect(drawer.assistant().last()).toHaveText("An answer.");
    await page.route("**/api/agent/turns/*/feedback", (route) =>
      route.fulfill({
        status: 503,
        contentType: "application/json",
        body: JSON.stringify({ error: { code: "unavailable", message: "the database is busy" } }),
      }),
    );
    const turn = page.getByTestId("agent-turn").last();
    await turn.getByTestId("agent-feedback-up").click();
    await expect(turn.getByTestId("agent-feedback-error")).toContainText("the database is busy");
    await expect(turn.getByTestId("agent-feedback-up")).toHaveAttribute("aria-pressed", "false");
  });
});
