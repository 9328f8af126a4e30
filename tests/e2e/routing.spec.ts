// The Routing page in the production build: each alias's candidates with their strategy and health, a dead
// provider's failures in its error rate, and a weighted alias's strategy on the ledger row.
import { expect, test } from "@playwright/test";
import OpenAI from "openai";
import { FAKE_UPSTREAM } from "../../playwright.config";
import { apiKey, signInAs } from "./pages";
import { shotPath, shotSession } from "./shots";

test("the Routing page shows each alias's candidates, the dead one failing, and the ledger names the strategy", async ({
  page,
  baseURL,
  browser,
}) => {
  await signInAs(page, "admin@acme.test");
  const client = new OpenAI({
    apiKey: await apiKey(page, baseURL, "e2e routing"),
    baseURL: `${baseURL}/v1`,
    maxRetries: 0,
  });
  await page.request.post(`${FAKE_UPSTREAM}/__control/reset`);
  // The dead provider refuses the connection; the fake answers.
  await client.chat.completions.create({
    model: "gpt-fallback",
    messages: [{ role: "user", content: "hi" }],
  });
  const weighted = await client.chat.completions.create({
    model: "gpt-weighted",
    messages: [{ role: "user", content: "hi" }],
  });
  await expect
    .poll(
      async () => (await (await page.request.get(`/api/agent/turns/${weighted._request_id}`)).json()).turn,
    )
    .toMatchObject({ status: "success", servedProvider: "fake" });
  const detail = await (
    await page.request.get(`/api/schema/agent-turns/detail/${weighted._request_id}`)
  ).json();
  expect(detail.row.routing).toBe("weighted");

  // The turn's replay names the strategy too.
  await page.goto(`/dev/agent/audit/${weighted._request_id}`);
  const summary = page.getByTestId("replay-summary");
  await expect(summary.getByText("Routing", { exact: true })).toBeVisible();
  await expect(summary.getByText("weighted", { exact: true })).toBeVisible();
  await summary.screenshot({ path: shotPath("replay-routing") });

  await page.goto("/dev/admin/routing");
  await expect(page.getByRole("heading", { name: "Routing" })).toBeVisible();
  const rows = await (await page.request.get("/api/schema/gateway-routing/rows?f.alias=gpt-")).json();
  const dead = rows.rows.find((r: { provider: string }) => r.provider === "dead");
  expect(dead).toMatchObject({ alias: "gpt-fallback", position: 1, state: "healthy", errorRate: 100 });
  expect(rows.rows.filter((r: { alias: string }) => r.alias === "gpt-weighted")).toEqual([
    expect.objectContaining({ strategy: "weighted", weight: 70, model: "gpt-4o-mini" }),
    expect.objectContaining({ strategy: "weighted", weight: 30, model: "gpt-4o" }),
  ]);
  await expect(page.getByRole("cell", { name: "dead", exact: true })).toBeVisible();

  for (const [name, width, height] of [
    ["admin-routing", 1280, 800],
    ["admin-routing-mobile", 360, 800],
  ] as const) {
    const shot = await shotSession(browser, baseURL!, "admin@acme.test", { width, height });
    await shot.page.goto("/dev/admin/routing?f.alias=gpt-");
    await expect(shot.page.getByRole("heading", { name: "Routing" })).toBeVisible();
    await shot.page.getByText("gpt-weighted").first().waitFor();
    await shot.page.screenshot({ path: shotPath(name) });
    await shot.context.close();
  }
});
