import http from "node:http";
import type { AddressInfo } from "node:net";
import { expect, type Page, test } from "@playwright/test";
import { verifySignature } from "../helpers/alert-receivers";
import { signInAs } from "./pages";

// Acme's alert rules and channels made here are deleted before and after (by name), so a rerun starts clean and
// no rule of this spec fires during the others.

const CHANNEL = "Ops receiver (e2e)";
const RULE = "Monthly budget (e2e)";
const SECRET = "e2e-alert-signing-secret-0123456789";

/** A webhook receiver on 127.0.0.1 (the e2e server's WEB_FETCH_ALLOW): it keeps every body it is sent. */
async function startReceiver() {
  const received: { headers: http.IncomingHttpHeaders; body: string }[] = [];
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => {
      body += chunk;
    });
    req.on("end", () => {
      received.push({ headers: req.headers, body });
      res.writeHead(200, { "content-type": "application/json" });
      res.end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/alerts`,
    received,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

/** The Alerts page, as a tenant admin sees it. */
class AlertsPage {
  constructor(readonly page: Page) {}
  channel = (name: string) => this.page.getByTestId("al-channel").filter({ hasText: name });
  rule = (name: string) => this.page.getByTestId("al-rule").filter({ hasText: name });

  async goto() {
    await this.page.goto("/dev/admin/alerts");
    await expect(this.page.getByTestId("admin-alerts")).toBeVisible();
    // "Add a rule" is enabled once the rules and channels have loaded.
    await expect(this.page.getByTestId("al-rule-add")).toBeEnabled();
  }

  async addWebhookChannel(name: string, url: string, secret: string) {
    await this.page.getByTestId("al-channel-add").click();
    const form = this.page.getByTestId("al-channel-form");
    await form.getByTestId("field-name").fill(name);
    await form.getByTestId("field-kind").selectOption("webhook");
    await form.getByTestId("field-url").fill(url);
    await form.getByTestId("field-secret").fill(secret);
    const saved = this.page.waitForResponse(
      (r) => r.url().endsWith("/api/alerts/channels") && r.request().method() === "POST",
    );
    await form.getByTestId("al-channel-save").click();
    expect((await saved).status()).toBe(201);
    await expect(form).toBeHidden();
  }

  async addBudgetRule(name: string, channel: string) {
    await this.page.getByTestId("al-rule-add").click();
    const form = this.page.getByTestId("al-rule-form");
    await form.getByTestId("field-name").fill(name);
    await form.getByTestId("field-kind").selectOption("budget_threshold");
    await form.getByTestId("field-thresholds").fill("50, 80, 100");
    await form.getByTestId("field-period").selectOption("monthly");
    await form.getByLabel(channel).check();
    const saved = this.page.waitForResponse(
      (r) => r.url().endsWith("/api/alerts/rules") && r.request().method() === "POST",
    );
    await form.getByTestId("al-rule-save").click();
    expect((await saved).status()).toBe(201);
    await expect(form).toBeHidden();
  }
}

/** Deletes Acme's rules and channels this spec makes, through the routes. */
async function clearAlerts(page: Page) {
  const rules = (await (await page.request.get("/api/alerts/rules")).json()) as {
    rules: { id: string; name: string }[];
  };
  for (const r of rules.rules.filter((r) => r.name === RULE))
    expect((await page.request.delete(`/api/alerts/rules/${r.id}`)).status()).toBe(204);
  const channels = (await (await page.request.get("/api/alerts/channels")).json()) as {
    channels: { id: string; name: string }[];
  };
  for (const c of channels.channels.filter((c) => c.name === CHANNEL))
    expect((await page.request.delete(`/api/alerts/channels/${c.id}`)).status()).toBe(204);
}

test.describe
  .serial("alerts", () => {
    test.afterAll(async ({ browser, baseURL }) => {
      const context = await browser.newContext({ baseURL });
      const page = await context.newPage();
      await signInAs(page, "admin@acme.test");
      await clearAlerts(page);
      await context.close();
    });

    test("an admin adds a webhook channel and a budget rule on it, sends a test, and sees it in the delivery log", async ({
      page,
    }) => {
      const receiver = await startReceiver();
      try {
        await signInAs(page, "admin@acme.test");
        await clearAlerts(page);
        const alerts = new AlertsPage(page);
        await alerts.goto();

        await alerts.addWebhookChannel(CHANNEL, receiver.url, SECRET);
        const channel = alerts.channel(CHANNEL);
        await expect(channel).toBeVisible();
        await expect(channel.getByTestId("al-channel-target")).toHaveText(receiver.url);
        // The secret is never shown back.
        await expect(page.getByTestId("admin-alerts")).not.toContainText(SECRET);

        await alerts.addBudgetRule(RULE, CHANNEL);
        const rule = alerts.rule(RULE);
        await expect(rule).toBeVisible();
        await expect(rule.getByTestId("al-rule-params")).toHaveText("50%, 80%, 100% of any monthly budgets");
        await expect(rule).toContainText(CHANNEL);

        await channel.getByTestId("al-channel-test").click();
        // A test is tried at once: the receiver has it, signed with the channel's secret, when the result shows.
        await expect(channel.getByTestId("al-channel-test-result")).toHaveAttribute(
          "data-status",
          "delivered",
        );
        expect(receiver.received).toHaveLength(1);
        const got = receiver.received[0]!;
        expect(verifySignature(String(got.headers["x-tollgate-signature"]), got.body, SECRET)).toBe(true);
        expect(JSON.parse(got.body)).toMatchObject({ type: "alert", test: true, rule: null });
        const delivery = page.getByTestId("al-delivery").filter({ hasText: CHANNEL }).first();
        await expect(delivery).toBeVisible();
        await expect(delivery).toHaveAttribute("data-status", "delivered");
        await expect(delivery).toContainText("Test alert from Tollgate");
      } finally {
        await receiver.close();
      }
    });

    test("the page fits a 360 px wide screen", async ({ page }) => {
      await page.setViewportSize({ width: 360, height: 740 });
      await signInAs(page, "admin@acme.test");
      const alerts = new AlertsPage(page);
      await alerts.goto();
      await expect(alerts.channel(CHANNEL)).toBeVisible();
      // With the rule form open, its widest state.
      await page.getByTestId("al-rule-add").click();
      await expect(page.getByTestId("al-rule-form")).toBeVisible();
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow).toBeLessThanOrEqual(0);
    });

    test("a member cannot open the page or reach the alerts routes", async ({ page }) => {
      await signInAs(page, "member@acme.test");
      expect((await page.goto("/dev/admin/alerts"))?.status()).toBe(403);
      expect((await page.request.get("/api/alerts/rules")).status()).toBe(403);
      expect((await page.request.get("/api/alerts/channels")).status()).toBe(403);
      expect((await page.request.get("/api/alerts/deliveries")).status()).toBe(403);
    });
  });
