import { expect, type Locator, type Page, test } from "@playwright/test";
import OpenAI from "openai";
import { FAKE_UPSTREAM } from "../../playwright.config";
import { signInAs } from "./pages";
import { shotPath } from "./shots";

// Every run renders the two screens (into test-results/screens); E2E_SCREENSHOTS=1 refreshes the README's.
/** The whole page from the top, or (`from`) the 1280×800 view that starts at that element, below the top bar. */
async function shot(page: Page, name: string, from?: Locator, then?: () => Promise<unknown>) {
  const path = shotPath(name);
  if (!from) {
    await page.evaluate(() => window.scrollTo(0, 0));
    return page.screenshot({ path, fullPage: true });
  }
  const top = (await from.boundingBox())?.y ?? 0;
  await page.evaluate((y) => window.scrollTo(0, y - 96), top + (await page.evaluate(() => window.scrollY)));
  await then?.();
  return page.screenshot({ path });
}

test.use({ viewport: { width: 1280, height: 800 } });

// Globex: no other spec sets its budgets, so these calls are never refused by a limit another spec left behind.
const ADMIN = "admin@globex.test";

/** The keys screen's row of one key. */
const keyRow = (page: Page, name: string) => page.locator(`[data-testid="key-row"][data-key-name="${name}"]`);

/** A chart's point, as its screen-reader table says it: the label, and the amount (exact on hover). */
const chartPoint = (page: Page, chart: string, label: string) =>
  page.locator(`[data-testid="chart"][data-chart-key="${chart}"] table tr`, {
    has: page.locator("th", { hasText: label }),
  });

test("key and end-user spend on the keys list and the cost dashboard", async ({ page, baseURL }) => {
  test.setTimeout(60_000);
  await signInAs(page, ADMIN);
  const run = Date.now().toString(36);
  const names = { billing: `e2e billing ${run}`, support: `e2e support ${run}` };
  const users = { ada: `ada-${run}`, bob: `bob-${run}` };
  const newKey = async (name: string) => {
    const res = await page.request.post("/api/keys", { data: { name } });
    expect(res.status()).toBe(201);
    return ((await res.json()) as { secret: string }).secret;
  };
  const billing = await newKey(names.billing);
  const support = await newKey(names.support);

  // gpt-fake is gpt-4o-mini at list prices ($0.15 in, $0.60 out per 1M tokens), so each call's cost is known:
  // 10M in + 1M out = $2.10; 1,000 in + 100 out = $0.00021; 80,000 in + 500 out = $0.0123.
  await page.request.post(`${FAKE_UPSTREAM}/__control/reset`);
  const calls = [
    { secret: billing, user: users.ada, usage: { input: 10_000_000, output: 1_000_000 } },
    { secret: billing, user: users.bob, usage: { input: 1_000, output: 100 } },
    { secret: support, user: users.ada, usage: { input: 80_000, output: 500 } },
  ];
  const queued = await page.request.post(`${FAKE_UPSTREAM}/__control/enqueue`, {
    data: { replies: calls.map((c) => ({ kind: "text", text: "ok", usage: c.usage })) },
  });
  expect((await queued.json()).queued).toBe(calls.length);
  for (const call of calls)
    await new OpenAI({
      apiKey: call.secret,
      baseURL: `${baseURL}/v1`,
      maxRetries: 0,
    }).chat.completions.create({
      model: "gpt-fake",
      messages: [{ role: "user", content: "hello" }],
      user: call.user,
    });

  // API calls reach the ledger in batches, a few milliseconds after the answer.
  await expect
    .poll(async () => {
      const { keys } = (await (await page.request.get("/api/keys")).json()) as {
        keys: { name: string; spentToday: string; spentThisMonth: string }[];
      };
      return keys
        .filter((k) => k.name === names.billing || k.name === names.support)
        .map((k) => [k.name, k.spentToday, k.spentThisMonth]);
    })
    .toEqual([
      [names.support, "0.0123", "0.0123"],
      [names.billing, "2.10021", "2.10021"],
    ]);

  // The keys list: two decimals from $1, four significant digits below, the exact amount on hover.
  await page.goto("/dev/admin/keys");
  await expect(page.getByTestId("keys-table")).toHaveAttribute("aria-busy", "false");
  const billingRow = keyRow(page, names.billing);
  await expect(billingRow.getByTestId("key-spent-today")).toHaveText("$2.10");
  await expect(billingRow.getByTestId("key-spent-today")).toHaveAttribute("title", "$2.10021");
  await expect(billingRow.getByTestId("key-spent-month")).toHaveText("$2.10");
  const supportRow = keyRow(page, names.support);
  await expect(supportRow.getByTestId("key-spent-today")).toHaveText("$0.0123");
  await expect(supportRow.getByTestId("key-spent-month")).toHaveText("$0.0123");
  await shot(page, "admin-keys-spend");

  // The cost dashboard: cost by API key (labelled with the keys' names) and by end user, largest first.
  await page.goto("/dev/agent/cost");
  const byKey = page.locator('[data-testid="chart"][data-chart-key="costByApiKey"]');
  await expect(byKey.locator("figcaption")).toHaveText("Cost by API key");
  await expect(byKey).toHaveAttribute("aria-busy", "false");
  await expect(chartPoint(page, "costByApiKey", names.billing).locator("td")).toHaveText("$2.10");
  await expect(chartPoint(page, "costByApiKey", names.billing).locator("td")).toHaveAttribute(
    "title",
    "$2.10021",
  );
  await expect(chartPoint(page, "costByApiKey", names.support).locator("td")).toHaveText("$0.0123");
  const keyLabels = await byKey.locator("table th").allTextContents();
  expect(keyLabels.indexOf(names.billing)).toBeLessThan(keyLabels.indexOf(names.support));

  const byUser = page.locator('[data-testid="chart"][data-chart-key="costByEndUser"]');
  await expect(byUser.locator("figcaption")).toHaveText("Cost by end user");
  await expect(chartPoint(page, "costByEndUser", users.ada).locator("td")).toHaveText("$2.11");
  await expect(chartPoint(page, "costByEndUser", users.ada).locator("td")).toHaveAttribute(
    "title",
    "$2.1123",
  );
  await expect(chartPoint(page, "costByEndUser", users.bob).locator("td")).toHaveText("$0.00021");
  // The bars are drawn too, not only the screen-reader table.
  await expect(byKey.locator(".recharts-bar-rectangle").first()).toBeVisible();
  await expect(byUser.locator(".recharts-bar-rectangle").first()).toBeVisible();
  await page.waitForTimeout(500);
  // Hovering a bar shows the rounded amount and the exact one beneath it.
  await shot(page, "admin-cost-spend", page.getByTestId("chart").first(), async () => {
    await byKey.locator(".recharts-bar-rectangle").first().hover();
    await expect(byKey.getByTestId("chart-tooltip-exact")).toHaveText("$2.10021");
  });
});
