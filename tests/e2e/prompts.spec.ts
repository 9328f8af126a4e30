import { type Browser, expect, type Page, test } from "@playwright/test";
import { signInAs } from "./pages";

// The prompt store's pages on the production build: create, edit, diff, move production, roll back, the
// playground, and the rights of a member, before and after an admin marks them a prompt editor.
test.use({ viewport: { width: 1280, height: 800 } });

// Not the demo's support/triage: a prompt of its own, so its versions start at 1.
const NAME = "e2e/triage";
const PAGE = "/dev/agent/prompts/e2e/triage";

async function signedIn(browser: Browser, email: string): Promise<Page> {
  const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
  await signInAs(page, email);
  return page;
}

const chip = (page: Page, label: string) => page.getByTestId("label-bar").locator(`[data-label="${label}"]`);

test("an admin creates a prompt, saves version 2, compares them, moves production and rolls it back", async ({
  browser,
}) => {
  const page = await signedIn(browser, "admin@acme.test");
  await page.getByRole("link", { name: "Prompts" }).first().click();
  await expect(page.getByTestId("schema-page")).toHaveAttribute("data-schema-key", "agent-prompts");

  await page.getByTestId("new-prompt").click();
  const editor = page.getByTestId("prompt-editor");
  await editor.getByTestId("prompt-name").fill(NAME);
  await editor.getByTestId("editor-content").first().fill("You triage {{product}} tickets.");
  await editor.getByTestId("editor-add-message").click();
  await editor.getByTestId("editor-content").nth(1).fill("Ticket: {{ticket}}");
  // The variables are detected as they are typed.
  await expect(editor.getByTestId("prompt-variables")).toContainText("{{product}}");
  await expect(editor.getByTestId("prompt-variables")).toContainText("{{ticket}}");
  await editor.getByTestId("editor-commit").fill("first draft");
  await editor.getByTestId("editor-save").click();

  await expect(page).toHaveURL(/\/dev\/agent\/prompts\/e2e(\/|%2F)triage/);
  await expect(page.getByTestId("prompt-title")).toHaveText("triage");
  await expect(page.getByTestId("version-item")).toHaveCount(1);
  await expect(page.getByTestId("prompt-message")).toHaveCount(2);
  await expect(page.getByTestId("prompt-variable").first()).toHaveText("{{product}}");

  // Version 2 from the editor, prefilled with version 1.
  await page.getByTestId("tab-edit").click();
  await page.getByTestId("editor-content").first().fill("You triage {{product}} tickets politely.");
  await page.getByTestId("editor-commit").fill("be polite");
  await page.getByTestId("editor-save").click();
  await expect(page.getByTestId("version-item")).toHaveCount(2);
  await expect(page.getByTestId("prompt-version")).toHaveAttribute("data-version", "2");
  await expect(page.getByTestId("version-item").first()).toContainText("be polite");

  // The diff of v1 and v2: the changed line, old on the left, new on the right.
  await page.getByTestId("tab-diff").click();
  await expect(page.getByTestId("diff-from")).toHaveValue("1");
  await expect(page.getByTestId("diff-to")).toHaveValue("2");
  const changed = page.locator('[data-testid="diff-row"][data-kind="changed"]');
  await expect(changed).toHaveCount(1);
  await expect(changed.locator('[data-diff="removed"]')).toHaveText(/You triage \{\{product\}\} tickets\.$/);
  await expect(changed.locator('[data-diff="added"]')).toHaveText(/tickets politely\.$/);

  // Production to v2, then rolled back to v1.
  await page.getByTestId("promote-production").click();
  await expect(chip(page, "production")).toContainText("v2");
  await page.locator('[data-testid="version-item"][data-version="1"]').click();
  await expect(page.getByTestId("prompt-version")).toHaveAttribute("data-version", "1");
  await page.getByTestId("rollback-production").click();
  await expect(chip(page, "production")).toContainText("v1");

  // Both moves are on the Admin changes page.
  await page.goto(`/dev/admin/changes?f.action=prompt.label_moved&f.objectId=${encodeURIComponent(NAME)}`);
  const moves = page.getByTestId("data-row");
  await expect(moves).toHaveCount(2);
  await expect(moves.first()).toContainText(NAME);
});

test("the playground runs a version: a missing variable is named, then the answer, tokens, cost, latency and its ledger row", async ({
  browser,
}) => {
  const page = await signedIn(browser, "admin@acme.test");
  await page.goto(`${PAGE}?v=2&tab=playground`);
  await expect(page.getByTestId("playground-model")).toHaveValue("offline-demo");
  await page.getByTestId("playground-var-product").fill("Tollgate");
  await page.getByTestId("playground-run").click();
  await expect(page.getByTestId("playground-error")).toContainText("missing prompt variable: ticket");

  await page.getByTestId("playground-var-ticket").fill("The ledger shows no rows");
  await page.getByTestId("playground-run").click();
  const result = page.getByTestId("playground-result");
  await expect(result.getByTestId("playground-status")).toHaveText("success");
  await expect(result.getByTestId("playground-answer")).toContainText("offline demo model");
  await expect(result.getByTestId("playground-tokens")).toHaveText(/^[1-9][\d,]* → [1-9][\d,]*$/);
  await expect(result.getByTestId("playground-cost")).toHaveText(/\$|unpriced/);
  await expect(result.getByTestId("playground-latency")).toHaveText(/\d+(\.\d)? m?s/);

  const href = await result.getByTestId("playground-ledger-link").getAttribute("href");
  const turnId = new URL(href!, "http://x").searchParams.get("detail");
  const rows = await page.request.get("/api/schema/agent-turns/rows?f.source=playground");
  expect(rows.status()).toBe(200);
  const ledger = (await rows.json()).rows as { id: string; source: string; status: string }[];
  expect(ledger.find((r) => r.id === turnId)).toMatchObject({ source: "playground", status: "success" });
  await result.getByTestId("playground-ledger-link").click();
  await expect(page.getByTestId("detail-drawer")).toBeVisible();
  await expect(page.getByTestId("detail-drawer")).toContainText(turnId!);

  // The run counts for its version: the prompt's metrics tab has v2 with a call, and its p50 latency.
  await page.goto(`${PAGE}?tab=metrics`);
  const v2 = page.getByTestId("prompt-compare-table").locator('tr[data-version="2"]');
  await expect(v2).toBeVisible();
  await expect(v2.locator("td").nth(1)).toHaveText("1");
  await expect(v2.locator("td").nth(5)).toHaveText(/\d+ ms/);
});

test("a member reads prompts but cannot move production; marked a prompt editor, they save a version", async ({
  browser,
}) => {
  const member = await signedIn(browser, "member@acme.test");
  // A member reaches the prompts from the top bar's Workspace menu (they have no Usage or Admin menu).
  await member.goto("/");
  await member.getByTestId("nav-menu-workspace").click();
  await member.getByRole("menuitem", { name: "Prompts" }).click();
  await expect(member).toHaveURL(/\/dev\/agent\/prompts$/);
  await expect(member.getByTestId("schema-page")).toHaveAttribute("data-schema-key", "agent-prompts");
  await expect(member.getByTestId("new-prompt")).toHaveCount(0);
  await member.getByRole("link", { name: NAME }).click();
  await expect(member.getByTestId("prompt-title")).toHaveText("triage");
  // Production points at v1, so v1 is shown; v2 offers production, disabled, with the reason.
  await member.locator('[data-testid="version-item"][data-version="2"]').click();
  await expect(member.getByTestId("promote-production")).toBeDisabled();
  await expect(member.getByTestId("production-reason")).toHaveText(
    "Only tenant admins move the production label.",
  );
  await expect(member.getByTestId("tab-edit")).toHaveCount(0);
  await expect(member.getByTestId("tab-playground")).toBeVisible();
  const put = await member.request.put("/api/prompts/e2e/triage/labels/production", {
    data: { version: 2 },
  });
  expect(put.status()).toBe(403);
  expect((await put.json()).error.message).toMatch(/only tenant admins/);

  const admin = await signedIn(browser, "admin@acme.test");
  await admin.goto("/dev/admin/members");
  const memberRow = admin.getByTestId("data-row").filter({ hasText: "member@acme.test" });
  const toggle = memberRow.getByTestId("row-toggle-prompt-editor").locator("input");
  await expect(toggle).not.toBeChecked();
  await toggle.check();
  await expect(toggle).toBeChecked();
  // Admins are editors by role: checked and disabled.
  const adminToggle = admin
    .getByTestId("data-row")
    .filter({ hasText: "admin@acme.test" })
    .getByTestId("row-toggle-prompt-editor")
    .locator("input");
  await expect(adminToggle).toBeChecked();
  await expect(adminToggle).toBeDisabled();

  await member.reload();
  await member.getByTestId("tab-edit").click();
  await member.getByTestId("editor-content").nth(1).fill("Ticket from {{customer}}: {{ticket}}");
  await member.getByTestId("editor-commit").fill("name the customer");
  await member.getByTestId("editor-save").click();
  await expect(member.getByTestId("version-item")).toHaveCount(3);
  await expect(member.getByTestId("prompt-version")).toHaveAttribute("data-version", "3");
  // Still no production for an editor.
  await expect(member.getByTestId("promote-production")).toBeDisabled();
});
