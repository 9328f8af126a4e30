import { chromium, type Page } from "@playwright/test";
import { CHROMIUM_ARGS } from "../playwright.config";

const BASE = "http://127.0.0.1:3150";
const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: CHROMIUM_ARGS });

async function login(page: Page, email: string) {
  await page.goto(`${BASE}/login`);
  await page.context().setExtraHTTPHeaders({ origin: BASE });
  await page.getByLabel(/email/i).fill(email);
  await page.getByLabel(/password/i).fill("tollgate-demo");
  await page.getByRole("button", { name: /^sign in$/i }).click();
  await page.waitForURL(`${BASE}/`);
}

const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
const page = await ctx.newPage();
await login(page, "admin@acme.test");
const post = (data: unknown) => page.request.post(`${BASE}/api/prompts`, { data });
if (process.argv[2] !== "noseed") {
  await post({
    name: "support/triage",
    type: "chat",
    messages: [
      {
        role: "system",
        content: "You triage support tickets for {{product}}. Answer in {{language}}.\nBe brief.",
      },
      { role: "user", content: "Ticket from {{customer}}:\n{{ticket}}" },
    ],
    config: { model: "offline-demo", temperature: 0.2 },
    message: "first draft",
  });
  await post({
    name: "support/triage",
    type: "chat",
    messages: [
      {
        role: "system",
        content:
          "You triage support tickets for {{product}}. Answer in {{language}}.\nBe brief and polite.\nName the team that should take the ticket.",
      },
      { role: "user", content: "Ticket from {{customer}}:\n{{ticket}}" },
    ],
    config: { model: "offline-demo", temperature: 0.3, maxTokens: 400 },
    labels: ["production"],
    message: "route tickets to a team",
  });
  await post({
    name: "support/triage",
    type: "chat",
    messages: [
      { role: "system", content: "You triage support tickets for {{product}}. Answer in {{language}}." },
      { role: "user", content: "{{ticket}}" },
    ],
    config: { model: "offline-demo" },
    labels: ["staging"],
    message: "shorter, for a test",
  });
  await post({
    name: "summarize",
    type: "text",
    text: "Summarize in three bullets:\n\n{{document}}",
    message: "v1",
  });
  await post({
    name: "assistant",
    type: "chat",
    messages: [{ role: "system", content: "You are Acme's governance assistant." }],
    labels: ["production"],
  });
  for (const variables of [
    { product: "Tollgate", language: "English", customer: "Globex", ticket: "The ledger is empty." },
    { product: "Tollgate", language: "English", customer: "Initech", ticket: "Budget alert fired twice." },
  ])
    await page.request.post(`${BASE}/api/prompts/support/triage/run`, { data: { variables } });
}

await page.goto(`${BASE}/dev/agent/prompts`);
await page.getByTestId("data-row").first().waitFor();
await page.waitForTimeout(500);
await page.screenshot({ path: "docs/screenshots/prompts-list.png", fullPage: true });

await page.goto(`${BASE}/dev/agent/prompts/support/triage?v=2`);
await page.getByTestId("prompt-content").waitFor();
await page.waitForTimeout(300);
await page.screenshot({ path: "docs/screenshots/prompt-versions.png", fullPage: true });

await page.goto(`${BASE}/dev/agent/prompts/support/triage?v=2&tab=diff&from=1&to=2`);
await page.getByTestId("prompt-diff").waitFor();
await page.waitForTimeout(300);
await page.screenshot({ path: "docs/screenshots/prompt-diff.png", fullPage: true });

await page.goto(`${BASE}/dev/agent/prompts/support/triage?v=2&tab=playground`);
await page.getByTestId("playground").waitFor();
await page.getByTestId("playground-var-product").fill("Tollgate");
await page.getByTestId("playground-var-language").fill("English");
await page.getByTestId("playground-var-customer").fill("Globex");
await page.getByTestId("playground-var-ticket").fill("Our budget alert fired twice this morning.");
await page.getByTestId("playground-run").click();
await page.getByTestId("playground-result").waitFor();
await page.waitForTimeout(300);
await page.screenshot({ path: "docs/screenshots/prompt-playground.png", fullPage: true });

await page.goto(`${BASE}/dev/agent/prompts/support/triage?v=3&tab=edit`);
await page.getByTestId("prompt-editor").waitFor();
await page.screenshot({ path: "/tmp/p19-edit.png", fullPage: true });

await page.goto(`${BASE}/dev/admin/members`);
await page.getByTestId("data-row").first().waitFor();
await page.screenshot({ path: "/tmp/p19-members.png", fullPage: true });

const mobile = await browser.newContext({ viewport: { width: 360, height: 780 } });
const m = await mobile.newPage();
await login(m, "admin@acme.test");
await m.goto(`${BASE}/dev/agent/prompts/support/triage?v=2`);
await m.getByTestId("prompt-content").waitFor();
await m.waitForTimeout(300);
await m.screenshot({ path: "docs/screenshots/prompt-mobile.png", fullPage: true });
await m.goto(`${BASE}/dev/agent/prompts`);
await m.getByTestId("data-row").first().waitFor();
await m.screenshot({ path: "/tmp/p19-list-mobile.png", fullPage: true });
await m.goto(`${BASE}/dev/agent/prompts/support/triage?v=2&tab=diff`);
await m.getByTestId("prompt-diff").waitFor();
await m.screenshot({ path: "/tmp/p19-diff-mobile.png", fullPage: true });
await browser.close();
