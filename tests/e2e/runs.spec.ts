import { expect, type Page, test } from "@playwright/test";
import { formatMoney } from "@/lib/core/format/money";
import { FAKE_UPSTREAM } from "../../playwright.config";
import { openFilter, signInAs } from "./pages";

test.use({ viewport: { width: 1280, height: 800 } });

const PROMPTS = ["Find order 4711", "Check its refund policy", "Draft the refund note"];

type RunRow = { runId: string; calls: number; cost: string | null; status: string };

/** The Runs page's row for a run, as its own API serves it (null until the ledger has the run). */
async function runRow(page: Page, runId: string): Promise<RunRow | null> {
  const res = await page.request.get(`/api/schema/agent-runs/rows?f.runId=${encodeURIComponent(runId)}`);
  expect(res.status()).toBe(200);
  return ((await res.json()) as { rows: RunRow[] }).rows[0] ?? null;
}

/**
 * A run of three /v1 calls under one x-tollgate-run-id, made with a new API key against the fake upstream; returns
 * the calls' turn ids in the order they were made, once the ledger (written in batches) has all three.
 */
async function seedRun(page: Page, runId: string): Promise<string[]> {
  const created = await page.request.post("/api/keys", { data: { name: `e2e run ${runId}` } });
  expect(created.status()).toBe(201);
  const { secret, key } = (await created.json()) as { secret: string; key: { id: string } };
  await page.request.post(`${FAKE_UPSTREAM}/__control/reset`);
  await page.request.post(`${FAKE_UPSTREAM}/__control/enqueue`, {
    data: {
      replies: PROMPTS.map((_, i) => ({
        kind: "text",
        text: `step ${i + 1} done`,
        usage: { input: 1000 * (i + 1), output: 500 },
      })),
    },
  });
  const turnIds: string[] = [];
  for (const content of PROMPTS) {
    const res = await page.request.post("/v1/chat/completions", {
      data: { model: "gpt-fake", messages: [{ role: "user", content }] },
      headers: { authorization: `Bearer ${secret}`, "x-tollgate-run-id": runId },
    });
    expect(res.status(), await res.text()).toBe(200);
    turnIds.push(res.headers()["x-request-id"]!);
  }
  await expect.poll(async () => (await runRow(page, runId))?.calls, { timeout: 15_000 }).toBe(3);
  // The run outlives its key: revoked, it leaves the keys page as other specs expect it.
  expect((await page.request.delete(`/api/keys/${key.id}`)).status()).toBe(200);
  return turnIds;
}

const rows = (page: Page) => page.getByTestId("data-row");
const loaded = async (page: Page) => {
  await expect(page.locator("table")).toHaveAttribute("aria-busy", "false");
  await expect(rows(page).first()).toBeVisible();
};

test.describe("the Runs page and a run replay", () => {
  test("a run of three /v1 calls is one row with its calls and cost, found by its id, and replays its calls in order", async ({
    page,
  }) => {
    const runId = `e2e-run-${Date.now()}`;
    await signInAs(page, "admin@acme.test");
    const turnIds = await seedRun(page, runId);
    expect(new Set(turnIds).size).toBe(3);
    const row = (await runRow(page, runId))!;
    expect(row).toMatchObject({ runId, calls: 3, status: "success" });
    expect(Number(row.cost)).toBeGreaterThan(0);

    // The newest run is the first row; its calls and cost are the run's totals.
    await page.goto("/dev/agent/runs");
    await loaded(page);
    const first = rows(page).first();
    await expect(first.locator('td[data-field="runId"]')).toHaveText(runId);
    await expect(first.locator('td[data-field="calls"]')).toHaveText("3");
    await expect(first.locator('td[data-field="cost"]')).toHaveText(formatMoney(row.cost, { locale: "en" }));

    // Filtered by its id, the run is the only row, and the filter is in the URL.
    await openFilter(page, "runId");
    await page.getByTestId("filter-runId").fill(runId);
    await page.getByTestId("filter-apply").click();
    await expect(page).toHaveURL((url) => url.searchParams.get("f.runId") === runId);
    await expect(page.getByTestId("filter-chip")).toContainText(runId);
    await expect(rows(page)).toHaveCount(1);
    await expect(rows(page).first().locator('td[data-field="runId"]')).toHaveText(runId);

    // Its replay: the run's totals, one timeline bar per call in the order they were made, then each call.
    await rows(page).first().getByTestId("row-link-replay").click();
    await expect(page).toHaveURL((url) => url.pathname === `/dev/agent/runs/${encodeURIComponent(runId)}`);
    await expect(page.getByTestId("run-id")).toHaveText(runId);
    await expect(page.getByTestId("run-totals")).toContainText(formatMoney(row.cost, { locale: "en" }));
    const bars = page.getByTestId("run-replay-page").getByTestId("waterfall-row");
    await expect(bars).toHaveCount(3);
    await expect(bars).toHaveText([/\b1\. gpt-4o-mini/, /\b2\. gpt-4o-mini/, /\b3\. gpt-4o-mini/]);
    const calls = page.getByTestId("run-call");
    await expect(calls).toHaveCount(3);
    expect(await calls.evaluateAll((els) => els.map((e) => e.getAttribute("data-turn-id")))).toEqual(turnIds);
    for (const [i, prompt] of PROMPTS.entries()) {
      await expect(calls.nth(i).locator("h3").first()).toHaveText(`Call ${i + 1}`);
      await expect(calls.nth(i).getByTestId("step-request")).toContainText(prompt);
    }
    // A call opens its own turn replay.
    await calls.nth(1).getByTestId("run-call-replay").click();
    await expect(page).toHaveURL(
      (url) => url.pathname === `/dev/agent/audit/${turnIds[1]}` && !url.search && !url.hash,
    );
    await expect(page.getByTestId("replay-turn-id")).toHaveText(turnIds[1]!);
  });

  test("at 360 px neither the Runs page nor a run replay makes the page scroll sideways", async ({
    page,
  }) => {
    const runId = `e2e-run-phone-${Date.now()}`;
    await page.setViewportSize({ width: 360, height: 780 });
    await signInAs(page, "admin@acme.test");
    await seedRun(page, runId);
    await page.goto("/dev/agent/runs");
    await loaded(page);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    await page.goto(`/dev/agent/runs/${runId}`);
    await expect(page.getByTestId("run-call")).toHaveCount(3);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
  });

  test("another tenant's run is not found, and a member cannot open the Runs page", async ({
    page,
    browser,
  }) => {
    const runId = `e2e-run-private-${Date.now()}`;
    await signInAs(page, "admin@acme.test");
    await seedRun(page, runId);

    const globex = await browser.newPage();
    await signInAs(globex, "admin@globex.test");
    await globex.goto(`/dev/agent/runs/${runId}`);
    await expect(globex.getByTestId("not-found")).toBeVisible();
    expect(await runRow(globex, runId)).toBeNull();
    await globex.close();

    const member = await browser.newPage();
    await signInAs(member, "member@acme.test");
    await member.goto(`/dev/agent/runs/${runId}`);
    await expect(member.getByTestId("forbidden")).toBeVisible();
    await member.close();
  });
});
