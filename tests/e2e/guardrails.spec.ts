import { expect, type Page, test } from "@playwright/test";
import OpenAI from "openai";
import { FAKE_UPSTREAM } from "../../playwright.config";
import { signInAs } from "./pages";

// Acme's guardrail policy is emptied before and after: a redact rule left behind would change what other specs'
// calls send to the fake upstream.

const RULE_ID = "e2e-pii";
const RULE_NAME = "Personal data (e2e)";

/** The Guardrails page, as a tenant admin sees it. */
class GuardrailsPage {
  constructor(readonly page: Page) {}
  rule = (id: string) => this.page.locator(`[data-testid="gr-rule"][data-rule-id="${id}"]`);

  async goto() {
    await this.page.goto("/dev/admin/guardrails");
    await expect(this.page.getByTestId("admin-guardrails")).toBeVisible();
    // "Add a rule" is enabled once the saved policy has loaded.
    await expect(this.page.getByTestId("gr-add")).toBeEnabled();
  }

  /** Adds a rule through the form: a check type and an action, the rest left as the form has them. */
  async addRule(rule: { id: string; name: string; type: string; action: string }) {
    await this.page.getByTestId("gr-add").click();
    const form = this.page.getByTestId("gr-rule-form");
    await form.getByTestId("field-name").fill(rule.name);
    await form.getByTestId("field-id").fill(rule.id);
    await form.getByTestId("field-type").selectOption(rule.type);
    await form.getByTestId("field-action").selectOption(rule.action);
    await form.getByTestId("gr-rule-apply").click();
    await expect(form).toBeHidden();
  }

  /** Saves the list and waits for the route to take it. */
  async save() {
    const saved = this.page.waitForResponse(
      (r) => r.url().endsWith("/api/governance/guardrails") && r.request().method() === "PUT",
    );
    await this.page.getByTestId("gr-save").click();
    expect((await saved).status()).toBe(200);
    await expect(this.page.getByTestId("gr-unsaved")).toBeHidden();
  }

  /** Runs the saved rules of a stage over a text in the "Test a text" box; returns the result. */
  async testText(text: string, stage = "input") {
    const box = this.page.getByTestId("gr-test");
    await box.getByTestId("gr-test-stage").selectOption(stage);
    await box.getByTestId("gr-test-text").fill(text);
    await box.getByTestId("gr-test-run").click();
    return box.getByTestId("gr-test-result");
  }
}

/** Empties the signed-in admin's tenant policy through the route. */
async function clearPolicy(page: Page) {
  const res = await page.request.put("/api/governance/guardrails", { data: { rules: [] } });
  expect(res.status()).toBe(200);
}

test.describe
  .serial("guardrails", () => {
    test.afterAll(async ({ browser, baseURL }) => {
      const context = await browser.newContext({ baseURL });
      const page = await context.newPage();
      await signInAs(page, "admin@acme.test");
      await clearPolicy(page);
      await context.close();
    });

    test("an admin adds a PII redact rule, saves it, and sees it after a reload", async ({ page }) => {
      await signInAs(page, "admin@acme.test");
      await clearPolicy(page);
      const guardrails = new GuardrailsPage(page);
      await guardrails.goto();
      await expect(page.getByTestId("gr-empty")).toBeVisible();

      await guardrails.addRule({ id: RULE_ID, name: RULE_NAME, type: "pii", action: "redact" });
      await expect(page.getByTestId("gr-unsaved")).toBeVisible();
      await guardrails.save();

      await page.reload();
      await expect(page.getByTestId("gr-add")).toBeEnabled();
      const rule = guardrails.rule(RULE_ID);
      await expect(rule).toBeVisible();
      await expect(rule.getByTestId("gr-rule-name")).toHaveText(RULE_NAME);
      await expect(rule.getByTestId("gr-rule-check")).toHaveText("Personal data: all kinds");
      await expect(rule).toContainText("Redact");
      await expect(page.getByTestId("gr-empty")).toBeHidden();
    });

    test("the Test a text box shows an email redacted by the saved rule", async ({ page }) => {
      await signInAs(page, "admin@acme.test");
      const guardrails = new GuardrailsPage(page);
      await guardrails.goto();
      await expect(guardrails.rule(RULE_ID)).toBeVisible();

      const result = await guardrails.testText("Write to jane.doe@example.com about her order.");
      await expect(result).toHaveAttribute("data-outcome", "redacted");
      await expect(result.getByTestId("gr-test-hit")).toHaveCount(1);
      await expect(result.getByTestId("gr-test-hit")).toContainText(`${RULE_NAME}: email`);
      await expect(result.getByTestId("gr-test-output")).toHaveText("Write to [EMAIL] about her order.");
    });

    test("a /v1 call under the saved rule reaches the provider redacted, and Recent hits finds it in the ledger", async ({
      page,
      baseURL,
    }) => {
      await signInAs(page, "admin@acme.test");
      await page.request.post(`${FAKE_UPSTREAM}/__control/reset`);
      const key = (await (
        await page.request.post("/api/keys", { data: { name: "e2e guardrails" } })
      ).json()) as {
        secret: string;
      };
      const { response } = await new OpenAI({
        apiKey: key.secret,
        baseURL: `${baseURL}/v1`,
        maxRetries: 0,
      }).chat.completions
        .create({ model: "house-model", messages: [{ role: "user", content: "Mail jane.doe@example.com" }] })
        .withResponse();
      expect(response.headers.get("x-tollgate-guardrail")).toContain('redacted;rule="e2e-pii"');
      const sent = (await (await page.request.get(`${FAKE_UPSTREAM}/__control/requests`)).json()) as unknown;
      expect(JSON.stringify(sent)).not.toContain("jane.doe@example.com");
      expect(JSON.stringify(sent)).toContain("[EMAIL]");

      const guardrails = new GuardrailsPage(page);
      await guardrails.goto();
      await page.getByTestId("gr-hits-redacted").click();
      await expect(page).toHaveURL(/\/dev\/agent\/turns\?f\.guardrail=redacted/);
      await expect(page.getByTestId("data-row").first()).toContainText("e2e guardrails");
    });

    test("a member cannot open the page or read the policy", async ({ page }) => {
      await signInAs(page, "member@acme.test");
      expect((await page.goto("/dev/admin/guardrails"))?.status()).toBe(403);
      expect((await page.request.get("/api/governance/guardrails")).status()).toBe(403);
      expect((await page.request.put("/api/governance/guardrails", { data: { rules: [] } })).status()).toBe(
        403,
      );
    });
  });
