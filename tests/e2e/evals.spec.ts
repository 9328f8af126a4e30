import { type APIRequestContext, expect, type Page, test } from "@playwright/test";
import { FAKE_UPSTREAM } from "../../playwright.config";
import { signInAs } from "./pages";

// The evaluation pages on the production build: a dataset made from a ledger turn ("Add to dataset") plus an
// appended item, a run over two targets (the offline model and the fake upstream) watched to the end, the
// comparison and the items side by side, and a second run cancelled while it runs.
test.use({ viewport: { width: 1280, height: 800 } });
test.describe.configure({ timeout: 120_000 });

const DATASET = "e2e greetings";
const RUN_URL = /\/dev\/agent\/evals\/runs\/[0-9a-f-]{36}$/;

const enqueue = (request: APIRequestContext, ...replies: unknown[]) =>
  request.post(`${FAKE_UPSTREAM}/__control/enqueue`, { data: { replies } });

/** A drawer turn of the offline demo model, so the ledger's newest row is one we know. */
async function askInDrawer(page: Page, text: string) {
  await page.getByTestId("agent-drawer-toggle").click();
  await page.getByTestId("agent-model-select").selectOption("offline-demo");
  await page.getByTestId("agent-input").fill(text);
  await page.getByTestId("agent-input").press("Enter");
  await expect(page.getByTestId("agent-answer-footer").last()).toBeVisible({ timeout: 20_000 });
  await page.getByTestId("agent-drawer-toggle").click();
}

/** Sets up a target row of the New run form. */
async function target(page: Page, index: number, model: string) {
  if (index > 0) await page.getByTestId("target-add").click();
  await page.getByTestId("target-model").nth(index).selectOption(model);
}

test.beforeEach(async ({ request }) => {
  await request.post(`${FAKE_UPSTREAM}/__control/reset`);
});

test("a ledger turn becomes a dataset, a run over two targets is watched to the end and compared", async ({
  page,
  request,
}) => {
  await signInAs(page, "admin@acme.test");
  await askInDrawer(page, "hello there, who are you?");

  // "Add to dataset" from the ledger row's detail, into a new dataset.
  await page.goto("/dev/agent/turns");
  await page.getByTestId("data-row").first().locator("td").first().click();
  const drawer = page.getByTestId("detail-drawer");
  await expect(drawer).toBeVisible();
  await drawer.getByTestId("row-link-addToDataset").click();
  await expect(page.getByTestId("add-turn-page")).toBeVisible();
  await page.getByTestId("add-to-dataset-select").selectOption("__new__");
  await page.getByTestId("add-to-dataset-name").fill(DATASET);
  await page.getByTestId("add-to-dataset-submit").click();
  const done = page.getByTestId("add-to-dataset-done");
  await expect(done).toContainText(DATASET);
  await done.getByRole("link", { name: DATASET }).click();

  // The dataset holds the turn's question; a second item is appended as JSONL, a bad line named first.
  await expect(page.getByTestId("dataset-name")).toHaveText(DATASET);
  await expect(page.getByTestId("dataset-item")).toHaveCount(1);
  await expect(page.getByTestId("dataset-item").first()).toContainText("hello there, who are you?");
  await page.getByTestId("append-open").click();
  await page
    .getByTestId("append-items")
    .fill('{"input": "hi, who are you?", "expected": "offline"}\n{"input": 5}');
  await expect(page.locator('[data-testid="import-error"][data-line="2"]')).toContainText("input");
  await expect(page.getByTestId("append-save")).toBeDisabled();
  await page.getByTestId("append-items").fill('{"input": "hi, who are you?", "expected": "offline"}');
  await page.getByTestId("append-save").click();
  await expect(page.getByTestId("append-done")).toBeVisible();
  await expect(page.getByTestId("dataset-item")).toHaveCount(2);

  // Two targets; the fake upstream answers one item like the offline model and the other with "ok".
  await enqueue(request, { kind: "text", text: "I am the offline demo model's stand-in." });
  await page.getByTestId("new-run").click();
  await target(page, 0, "offline-demo");
  await target(page, 1, "gpt-fake");
  await page.getByTestId("scorer-add").click();
  await page.getByTestId("scorer-type").selectOption("contains");
  await page.getByTestId("scorer-value").fill("offline demo model");
  await page.getByTestId("field-concurrency").fill("1");
  await page.getByTestId("new-run-start").click();

  // Live progress until the run is done.
  await expect(page).toHaveURL(RUN_URL);
  await expect(page.getByTestId("run-progress")).toBeVisible();
  await expect(page.getByTestId("run-status")).toHaveAttribute("data-status", "done", { timeout: 60_000 });
  await expect(page.getByTestId("progress-done")).toHaveText("4 of 4");
  await expect(page.getByTestId("progress-passed")).toHaveText("3");
  await expect(page.getByTestId("run-cancel")).toHaveCount(0);

  // The comparison: both targets with their pass rates, and the chart.
  const offline = page.locator('[data-testid="target-summary"][data-target="offline-demo"]');
  const fake = page.locator('[data-testid="target-summary"][data-target="gpt-fake"]');
  await expect(offline.getByTestId("target-pass-rate")).toHaveText("100%");
  await expect(fake.getByTestId("target-pass-rate")).toHaveText("50%");
  await expect(page.getByTestId("pass-cost-chart")).toBeVisible();

  // The items side by side: each row has both targets' outputs; one row disagrees, with its differences marked.
  const items = page.getByTestId("run-item");
  await expect(items).toHaveCount(2);
  await expect(items.first().getByTestId("item-output")).toHaveCount(2);
  await expect(page.getByTestId("item-score").first()).toContainText("contains");
  await page.getByTestId("only-disagree").check();
  await expect(items).toHaveCount(1);
  const disagreeing = items.first();
  await expect(disagreeing).toHaveAttribute("data-disagree", "true");
  await expect(disagreeing.getByTestId("verdict-pass")).toHaveCount(1);
  await expect(disagreeing.getByTestId("verdict-fail")).toHaveCount(1);
  await expect(disagreeing.getByTestId("output-diff").first()).toHaveText("ok");

  // The CSV export answers a CSV with one line per item and target.
  const href = await page.getByTestId("run-export").getAttribute("href");
  const csv = await page.request.get(href!);
  expect(csv.status()).toBe(200);
  expect(csv.headers()["content-type"]).toContain("text/csv");
  expect((await csv.text()).trim().split("\n").length).toBeGreaterThanOrEqual(5);

  // The run is listed on the evaluations page, with its pass rate.
  await page.goto("/dev/agent/evals");
  await expect(page.getByTestId("schema-page").filter({ hasText: DATASET }).first()).toBeVisible();
});

test("a second run is cancelled while it runs", async ({ page, request }) => {
  await signInAs(page, "admin@acme.test");
  await page.goto("/dev/agent/evals");
  // Both tables loaded and settled before the click (a row arriving late would move the link under the pointer).
  await expect(page.getByTestId("row-count")).toHaveCount(2);
  for (const count of await page.getByTestId("row-count").all())
    await expect(count).not.toHaveText(/Loading/);
  const link = page.getByTestId("schema-page").getByRole("link", { name: DATASET }).first();
  await expect(link).toHaveAttribute("href", /\/dev\/agent\/evals\/datasets\/[0-9a-f-]{36}$/);
  await link.click();
  await expect(page).toHaveURL(/\/dev\/agent\/evals\/datasets\//, { timeout: 20_000 });
  await expect(page.getByTestId("dataset-name")).toHaveText(DATASET, { timeout: 20_000 });

  // The fake upstream takes its time over every answer.
  await enqueue(
    request,
    { kind: "text", text: "slow one", delayMs: 8000 },
    { kind: "text", text: "slow two", delayMs: 8000 },
  );
  await page.getByTestId("new-run").click();
  await target(page, 0, "gpt-fake");
  await page.getByTestId("field-concurrency").fill("1");
  await page.getByTestId("field-name").fill("to cancel");
  await page.getByTestId("new-run-start").click();
  await expect(page).toHaveURL(RUN_URL);
  await expect(page.getByTestId("run-status")).toHaveAttribute("data-status", /queued|running/);
  await page.getByTestId("run-cancel").click();
  await expect(page.getByTestId("run-status")).toHaveAttribute("data-status", "cancelled", {
    timeout: 30_000,
  });
  await expect(page.getByTestId("run-cancel")).toHaveCount(0);
  const shown = Number(await page.getByTestId("progress-done").getAttribute("data-done"));
  expect(shown).toBeLessThan(2);
});
