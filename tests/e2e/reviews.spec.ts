import { expect, type Page, test } from "@playwright/test";
import { apiKey, signInAs } from "./pages";
import { shotPath } from "./shots";

// Review queues end to end: the demo admin defines a queue on Admin → Review queues, works three of its items in
// the focused view with the keyboard only (score, Enter; one skipped with `s`), adds one item's turn to a dataset
// with `d`, and finds it on the dataset's page, the right counts and their own throughput on the queue's page.
// Names carry the run's time: a queue's and a config's name are the tenant's once.

const itemOf = (page: Page) => page.getByTestId("review-view").getAttribute("data-item-id");

/** Waits for the review view to show an item other than `previous`, and answers its id. */
async function nextItem(page: Page, previous: string | null): Promise<string> {
  await expect(page.getByTestId("review-view")).toBeVisible();
  await expect.poll(() => itemOf(page), { timeout: 15_000 }).not.toBe(previous);
  await expect(page.getByTestId("replay-page")).toBeVisible();
  return (await itemOf(page))!;
}

test.describe("review queues", () => {
  test("an admin defines a queue, works three items by keyboard, adds one to a dataset, and sees the progress", async ({
    page,
    baseURL,
  }) => {
    test.setTimeout(120_000);
    const stamp = Date.now();
    const verdict = `e2e.verdict.${stamp}`;
    const queueName = `E2E review ${stamp}`;
    await signInAs(page, "admin@acme.test");
    const origin = { origin: baseURL ?? "" };

    // What the queue asks and where its items may go: a categorical score config and a dataset.
    const config = await page.request.post("/api/score-configs", {
      headers: origin,
      data: { name: verdict, type: "categorical", categories: ["good", "bad", "unclear"] },
    });
    expect(config.status()).toBe(201);
    const dataset = await page.request.post("/api/evals/datasets", {
      headers: origin,
      data: { name: `E2E reviewed ${stamp}` },
    });
    expect(dataset.status()).toBe(201);
    const datasetId: string = (await dataset.json()).id;

    // Turns for the queue's rule to find: calls of a key of the tenant's own (the offline demo model).
    const secret = await apiKey(page, baseURL, `reviews e2e ${stamp}`);
    for (let i = 0; i < 6; i++) {
      const called = await page.request.post("/v1/chat/completions", {
        headers: { authorization: `Bearer ${secret}` },
        data: { model: "offline-demo", messages: [{ role: "user", content: `Review me ${i}` }] },
      });
      expect(called.status()).toBe(200);
    }

    // The queue, through the form: a 100 % sample of the API's offline-demo calls, scored by the verdict and thumbs.
    await page.goto("/dev/admin/reviews");
    await expect(page.getByTestId("admin-reviews")).toBeVisible();
    await page.getByTestId("rv-queue-add").click();
    const form = page.getByTestId("rv-queue-form");
    await form.getByTestId("field-name").fill(queueName);
    const rule = form.getByTestId("rv-rule").first();
    await rule.getByTestId("rv-rule-type").selectOption("sample");
    await rule.getByTestId("rv-rule-percent").fill("100");
    await rule.getByTestId("rv-rule-source").selectOption("api");
    await rule.getByTestId("rv-rule-alias").fill("offline-demo");
    await form.locator(`[data-testid="rv-score-name"][value="${verdict}"]`).check();
    await form.locator('[data-testid="rv-score-name"][value="thumbs"]').check();
    await form.getByTestId("field-datasetId").selectOption(datasetId);
    await form.getByTestId("rv-queue-save").click();
    await expect(form).toHaveCount(0);
    const card = page.getByTestId("rv-queue").filter({ hasText: queueName });
    await expect(card).toBeVisible();
    const queueId = (await card.getAttribute("data-queue-id"))!;

    // The focused view: the first item is claimed on load.
    await card.getByTestId("rv-queue-start").click();
    await expect(page).toHaveURL((url) => url.pathname.startsWith(`/review/${queueId}/`));
    let item = await nextItem(page, null);
    await expect(page.getByTestId("review-lease")).toBeVisible();
    await expect(page.getByTestId("review-score")).toHaveCount(2);

    // `?` shows the shortcuts; Escape hides them.
    await page.keyboard.press("?");
    await expect(page.getByTestId("review-shortcuts")).toBeVisible();
    await page.keyboard.press("Escape");
    await expect(page.getByTestId("review-shortcuts")).toHaveCount(0);

    // Enter with a score missing is refused in place, naming it.
    await page.keyboard.press("2");
    const verdictField = page.locator(`[data-testid="review-score"][data-score-name="${verdict}"]`);
    await expect(verdictField.locator('[aria-pressed="true"]')).toHaveAttribute("data-value", "bad");
    await page.keyboard.press("Enter");
    const thumbs = page.locator('[data-testid="review-score"][data-score-name="thumbs"]');
    await expect(thumbs).toContainText("Give thumbs a value.");
    await page.keyboard.press("y");
    await expect(thumbs.getByTestId("review-score-error")).toHaveCount(0);
    // Typing in the comment never fires a shortcut: "s" and "d" are text there.
    await page.getByTestId("review-comment").fill("");
    await page.getByTestId("review-comment").pressSequentially("sad");
    await expect(page.getByTestId("review-comment")).toHaveValue("sad");
    expect(await itemOf(page)).toBe(item);
    await page.getByTestId("review-comment").blur();
    // `d` adds the turn to the queue's dataset.
    await page.keyboard.press("d");
    await expect(page.getByTestId("review-dataset-added")).toContainText(`E2E reviewed ${stamp}`);
    const addedTurn = await page.getByTestId("review-view").getAttribute("data-turn-id");
    await page.screenshot({ path: shotPath("review-view") });
    // Ctrl+Enter from the comment submits and claims the next.
    await page.getByTestId("review-comment").focus();
    await page.keyboard.press("Control+Enter");
    item = await nextItem(page, item);

    // The second: skipped with `s`.
    await page.keyboard.press("s");
    item = await nextItem(page, item);

    // The third: scored with keys only, Enter.
    await page.keyboard.press("1");
    await page.keyboard.press("n");
    await page.keyboard.press("Enter");
    item = await nextItem(page, item);

    // At 360 px the replay stacks above the form, and the keys still work.
    await page.setViewportSize({ width: 360, height: 800 });
    const replayBox = await page.getByTestId("review-replay").boundingBox();
    const formBox = await page.getByTestId("review-form").boundingBox();
    expect(formBox!.y).toBeGreaterThan(replayBox!.y + replayBox!.height - 1);
    await page.keyboard.press("3");
    await page.keyboard.press("y");
    await page.screenshot({ path: shotPath("review-view-360"), fullPage: true });
    await page.keyboard.press("Enter");
    await expect.poll(() => page.getByTestId("review-view").getAttribute("data-item-id")).not.toBe(item);
    await page.setViewportSize({ width: 1280, height: 800 });

    // The queue's page: three done (two at 1280 px, one at 360 px), the admin's throughput, the items.
    await page.goto(`/dev/admin/reviews/${queueId}`);
    const progress = page.getByTestId("rv-queue-page-progress");
    await expect(progress).toHaveAttribute("data-done", "3");
    const mine = page.locator('[data-testid="rv-throughput-row"][data-email="admin@acme.test"]');
    await expect(mine.getByTestId("rv-done-today")).toHaveText("3");
    await page.getByTestId("rv-items-done").click();
    await expect(page.getByTestId("rv-item")).toHaveCount(3);
    await page.screenshot({ path: shotPath("review-queue"), fullPage: true });
    await page.goto("/dev/admin/reviews");
    await expect(
      page.getByTestId("rv-queue").filter({ hasText: queueName }).getByTestId("rv-queue-progress"),
    ).toHaveAttribute("data-done", "3");
    await page.screenshot({ path: shotPath("review-queues") });

    // The dataset holds the reviewed turn.
    await page.goto(`/dev/agent/evals/datasets/${datasetId}`);
    await expect(page.getByTestId("dataset-item")).toHaveCount(1);
    await expect(
      page.getByTestId("dataset-item").locator(`a[href="/dev/agent/audit/${addedTurn}"]`),
    ).toBeVisible();

    // The home's tile links into the queue's review view.
    await page.goto("/");
    const tile = page.getByTestId("home-reviews");
    await expect(tile.locator(`a[href="/review/${queueId}"]`)).toBeVisible();
    await tile.screenshot({ path: shotPath("home-review-tile") });
  });
});
