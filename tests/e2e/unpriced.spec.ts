import { expect, test } from "@playwright/test";
import OpenAI from "openai";
import { FAKE_UPSTREAM } from "../../playwright.config";
import { signInAs } from "./pages";

const HOUSE = "house-llm-1";

test("a model without a price: recorded as unpriced, refused under a hard budget, then let through at the price an admin assumes on the Limits page", async ({
  page,
  baseURL,
}) => {
  test.setTimeout(60_000);
  await signInAs(page, "admin@acme.test");
  await page.request.post(`${FAKE_UPSTREAM}/__control/reset`);
  // The fake names the model that served, as the real API does; pricing goes by that name.
  const answerAsHouse = () =>
    page.request.post(`${FAKE_UPSTREAM}/__control/enqueue`, {
      data: {
        replies: [
          { kind: "text", text: "in-house answer", model: HOUSE, usage: { input: 1000, output: 500 } },
        ],
      },
    });
  const newKey = async (name: string) =>
    (await (await page.request.post("/api/keys", { data: { name } })).json()) as {
      secret: string;
      key: { id: string };
    };
  const ask = (secret: string) =>
    new OpenAI({ apiKey: secret, baseURL: `${baseURL}/v1`, maxRetries: 0 }).chat.completions
      .create({ model: "house-model", messages: [{ role: "user", content: "hello" }] })
      .withResponse();
  const turn = async (id: string) => {
    let row: Record<string, unknown> | undefined;
    await expect
      .poll(async () => {
        row = (await (await page.request.get(`/api/agent/turns/${id}`)).json()).turn;
        return row?.status;
      })
      .toBe("success");
    return row!;
  };

  // Without a budget: served, its tokens recorded, its cost unknown (never 0).
  const free = await newKey("e2e unpriced");
  await answerAsHouse();
  const first = await ask(free.secret);
  const unpriced = await turn(first.response.headers.get("x-request-id")!);
  expect(unpriced).toMatchObject({ servedModel: HOUSE, inputTokens: 1000, outputTokens: 500, cost: null });

  // The ledger says so plainly: the Pricing filter finds the row, its cost cell says "unpriced".
  await page.goto("/dev/agent/turns?f.costStatus=unpriced");
  const row = page.getByTestId("data-row").first();
  await expect(row).toContainText(HOUSE);
  await expect(row.getByTestId("cost-unpriced")).toBeVisible();

  // Under a hard budget the call is refused before any provider is asked, naming the model.
  const budgeted = await newKey("e2e unpriced budget");
  const limits = await page.request.put("/api/governance/limits", {
    data: { scope: "key", subjectId: budgeted.key.id, dailyHardUsd: "5" },
  });
  expect(limits.status(), await limits.text()).toBe(200);
  const refused = await ask(budgeted.secret).catch((error: unknown) => error);
  expect(refused).toMatchObject({ status: 429, code: "budget_unpriced_model" });
  expect((refused as Error).message).toContain(`fake/${HOUSE}`);

  // The tenant admin assumes a price for it on the Limits page.
  await page.goto("/dev/admin/limits");
  const house = page.locator(`[data-testid="assumed-price-row"][data-model="fake/${HOUSE}"]`);
  await expect(house).toContainText(/no price/i);
  await house.getByTestId("assumed-input").fill("2");
  await house.getByTestId("assumed-output").fill("8");
  await house.getByTestId("assumed-save").click();
  await expect(house).toContainText(/assumed price/i);

  // Now it passes under the budget, priced at the assumed price and recorded as such: 1,000 × $2/M + 500 × $8/M.
  await answerAsHouse();
  const through = await ask(budgeted.secret);
  const assumed = await turn(through.response.headers.get("x-request-id")!);
  expect(Number(assumed.cost)).toBe(0.006);
  expect(assumed.costStatus).toBe("assumed");

  // The change is in the admin-change log.
  const changes = await (
    await page.request.get("/api/schema/admin-changes/rows?segment=assumed_price")
  ).json();
  expect(JSON.stringify(changes.rows)).toContain(`fake/${HOUSE}`);

  // Removed again, so the shared demo tenant is as it was for the other specs.
  const removed = await page.request.put("/api/governance/assumed-prices", {
    data: { provider: "fake", model: HOUSE, price: null },
  });
  expect(removed.status()).toBe(200);
});
