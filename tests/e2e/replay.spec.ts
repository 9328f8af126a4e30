import { expect, type Page, test } from "@playwright/test";
import { signInAs } from "./pages";

test.use({ viewport: { width: 1280, height: 800 } });

const TURN_URL = /\/dev\/agent\/audit\/([0-9a-f-]{36})$/;

/** A drawer turn with a tool call (the offline demo model looks the orders up), replayed from its ledger row. */
async function askAndOpenReplay(page: Page): Promise<string> {
  await page.getByTestId("agent-drawer-toggle").click();
  await page.getByTestId("agent-input").fill("What are my open orders?");
  await page.getByTestId("agent-input").press("Enter");
  await expect(page.getByTestId("agent-answer-footer").last()).toBeVisible({ timeout: 20_000 });
  await page.getByTestId("agent-drawer-toggle").click();
  await page.goto("/dev/agent/turns");
  const newest = page.getByTestId("data-row").first();
  await expect(newest).toBeVisible();
  await newest.getByTestId("row-link-replay").click();
  await expect(page).toHaveURL(TURN_URL);
  await expect(page.getByTestId("replay-page")).toBeVisible();
  return TURN_URL.exec(page.url())![1]!;
}

test.describe("the turn replay", () => {
  test("replays a drawer turn: rounds, a tool with its duration and pretty JSON, the answer", async ({
    page,
  }) => {
    await signInAs(page, "admin@acme.test");
    const turnId = await askAndOpenReplay(page);
    await expect(page.getByTestId("replay-turn-id")).toHaveText(turnId);
    await expect(page.getByTestId("step-request")).toContainText("What are my open orders?");
    // Two rounds: the call that asked for the tool, and the call that answered from its result.
    await expect(page.getByTestId("step-model")).toHaveCount(2);
    await expect(page.getByTestId("step-model").first()).toContainText("offline-demo");
    const tool = page.getByTestId("step-tool");
    await expect(tool).toHaveCount(1);
    await expect(tool).toContainText("query_orders");
    await expect(tool.getByTestId("tool-duration")).toHaveText(/^\d+ ms$/);
    // The result is shown as a JSON tree, never as an escaped string.
    const result = tool.getByTestId("tool-result");
    await expect(result).toHaveAttribute("data-kind", "json");
    const text = await result.textContent();
    expect(text).not.toContain('\\"');
    expect(text).toMatch(/"orders"|"count"|"items"|"status"/);
    await expect(page.getByTestId("step-answer")).toBeVisible();
    await expect(page.getByTestId("replay-missing")).toHaveCount(0);
    // The waterfall draws both model calls and the tool.
    await expect(page.getByTestId("waterfall-bar-model")).toHaveCount(2);
    await expect(page.getByTestId("waterfall-bar-tool")).toHaveCount(1);
    // Nothing at 1280 px needs a horizontal scroll.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(1280);
  });

  test("its permalinks reopen the turn, and an event's anchor scrolls to it and marks it", async ({
    page,
  }) => {
    await signInAs(page, "admin@acme.test");
    const turnId = await askAndOpenReplay(page);
    const answer = page.getByTestId("step-answer");
    const seq = await answer.getAttribute("data-seq");
    expect(seq).toMatch(/^\d+$/);
    await page.goto(`/dev/agent/audit/${turnId}#event-${seq}`);
    await expect(page.getByTestId("replay-turn-id")).toHaveText(turnId);
    await expect(page).toHaveTitle("Turn replay · Tollgate");
    await expect(answer).toHaveAttribute("data-highlighted", "true");
    await expect(answer).toBeInViewport();
    // A tool result has its own anchor inside the tool's step.
    const resultLink = page.getByTestId("tool-result-part").getByTestId("event-permalink");
    await resultLink.click();
    await expect(page).toHaveURL(new RegExp(`/dev/agent/audit/${turnId}#event-\\d+$`));
    await expect(page.getByTestId("tool-result-part")).toHaveAttribute("data-highlighted", "true");
    await expect(answer).not.toHaveAttribute("data-highlighted", "true");
  });

  test("previous and next walk the tenant's turns by start time", async ({ page }) => {
    await signInAs(page, "admin@acme.test");
    const turnId = await askAndOpenReplay(page);
    await page.getByTestId("replay-prev").click();
    await expect(page).not.toHaveURL(new RegExp(turnId));
    await expect(page).toHaveURL(TURN_URL);
    const previous = TURN_URL.exec(page.url())![1]!;
    await expect(page.getByTestId("replay-turn-id")).toHaveText(previous);
    await page.getByTestId("replay-next").click();
    await expect(page.getByTestId("replay-turn-id")).toHaveText(turnId);
    expect(page.url()).toMatch(new RegExp(`/dev/agent/audit/${turnId}$`));
  });

  test("opens from a ledger row's detail and from the audit list", async ({ page }) => {
    await signInAs(page, "admin@acme.test");
    await page.goto("/dev/agent/turns");
    await page.getByTestId("data-row").first().locator("td").first().click();
    const drawer = page.getByTestId("detail-drawer");
    await expect(drawer).toBeVisible();
    const id = await page.getByTestId("data-row").first().getAttribute("data-row-id");
    await drawer.getByTestId("row-link-replay").click();
    await expect(page).toHaveURL(new RegExp(`/dev/agent/audit/${id}$`));
    await expect(page.getByTestId("replay-turn-id")).toHaveText(id!);

    await page.goto("/dev/agent/audit?segment=tool_result");
    const row = page.getByTestId("data-row").first();
    await expect(row).toBeVisible();
    await row.locator('td[data-field="turnId"] a').click();
    // The audit list links to the event itself: the replay opens scrolled to it.
    await expect(page).toHaveURL(/\/dev\/agent\/audit\/[0-9a-f-]{36}#event-\d+$/);
    // A demo turn replays like a real one: its model calls and tools are recorded, nothing is missing.
    await expect(page.getByTestId("step-tool").first()).toBeVisible();
    await expect(page.getByTestId("step-model").first()).toBeVisible();
    await expect(page.getByTestId("replay-missing")).toHaveCount(0);
  });

  test("another tenant's turn is not found and a member is refused", async ({ page, browser }) => {
    await signInAs(page, "admin@acme.test");
    const rows = await page.request.get("/api/schema/agent-turns/rows?limit=1");
    const turnId = ((await rows.json()) as { rows: { id: string }[] }).rows[0]!.id;

    const globex = await browser.newPage();
    await signInAs(globex, "admin@globex.test");
    await globex.goto(`/dev/agent/audit/${turnId}`);
    await expect(globex.getByTestId("not-found")).toBeVisible();
    expect((await globex.request.get(`/api/agent/turns/${turnId}/replay`)).status()).toBe(404);
    await globex.close();

    const member = await browser.newPage();
    await signInAs(member, "member@acme.test");
    await member.goto(`/dev/agent/audit/${turnId}`);
    await expect(member.getByTestId("forbidden")).toBeVisible();
    await member.close();
  });
});
