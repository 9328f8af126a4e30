import { expect, test } from "@playwright/test";
import { apiKey, signInAs } from "./pages";
import { shotPath } from "./shots";

// A tenant admin's score configs on Admin → Scores, and a score they validate sent with a key. Config names carry
// the run's time: a name is the tenant's once (archived configs keep theirs).

test.describe("scores", () => {
  test("an admin creates a score config, a key's score outside its range is refused, and the config is archived", async ({
    page,
    baseURL,
  }) => {
    const name = `e2e.stars.${Date.now()}`;
    await signInAs(page, "admin@acme.test");
    await page.goto("/dev/admin/scores");
    await expect(page.getByTestId("admin-scores")).toBeVisible();
    await page.getByTestId("sc-config-add").click();
    const form = page.getByTestId("sc-config-form");
    await form.getByTestId("field-name").fill(name);
    await form.getByTestId("field-type").selectOption("numeric");
    await form.getByTestId("field-min").fill("1");
    await form.getByTestId("field-max").fill("x");
    await form.getByTestId("sc-config-save").click();
    // The form's own check: not a number, nothing sent.
    await expect(form.getByTestId("field-error-max")).toBeVisible();
    await form.getByTestId("field-max").fill("5");
    await form.getByTestId("field-description").fill("One to five stars");
    await form.getByTestId("sc-config-save").click();
    const config = page.getByTestId("sc-config").filter({ hasText: name });
    await expect(config.getByTestId("sc-config-allowed")).toHaveText("1 … 5");
    await page.screenshot({ path: shotPath("scores-configs") });

    // A key's score of that name is checked against it.
    const secret = await apiKey(page, baseURL, `scores e2e ${Date.now()}`);
    // A call of the key's own (the offline demo model): its ledger row is what the scores go on.
    const called = await page.request.post("/v1/chat/completions", {
      headers: { authorization: `Bearer ${secret}` },
      data: { model: "offline-demo", messages: [{ role: "user", content: "Rate me" }] },
    });
    expect(called.status()).toBe(200);
    const turnId = called.headers()["x-request-id"]!;
    const send = (value: number) =>
      page.request.post("/v1/scores", {
        headers: { authorization: `Bearer ${secret}` },
        data: { turnId, name, value },
      });
    // The ledger row is written as the call closes: until it is there, the turn is not found.
    await expect.poll(async () => (await send(9)).status(), { timeout: 10_000 }).toBe(422);
    const refused = await send(9);
    expect((await refused.json()).error).toMatchObject({ param: "value", type: "invalid_request_error" });
    expect((await send(4)).status()).toBe(201);

    await config.getByTestId("sc-config-archive").click();
    await config.getByTestId("sc-config-archive-confirm").click();
    await expect(config).toContainText("Archived");
    expect((await send(9)).status()).toBe(201);

    await page.setViewportSize({ width: 360, height: 800 });
    await page.screenshot({ path: shotPath("scores-configs-narrow"), fullPage: true });
  });
});
