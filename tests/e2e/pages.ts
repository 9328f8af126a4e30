import { expect, type Page } from "@playwright/test";

export const DEMO_PASSWORD = "tollgate-demo";

/** The sign-in page, as a user sees it. */
export class LoginPage {
  constructor(readonly page: Page) {}

  async goto(path = "/login") {
    await this.page.goto(path);
    await expect(this.page.getByRole("button", { name: /^(sign in|登录)$/i })).toBeVisible();
    // The app refuses state-changing requests that do not prove they come from its own pages (proxy.ts).
    // The browser's own requests carry an Origin; the tests' page.request calls, made outside the page, get
    // the one a same-origin fetch from this page would carry.
    await this.page.context().setExtraHTTPHeaders({ origin: new URL(this.page.url()).origin });
  }

  async signIn(email: string, password = DEMO_PASSWORD) {
    await this.page.getByLabel(/email|邮箱/i).fill(email);
    await this.page.getByLabel(/password|密码/i).fill(password);
    await this.page.getByRole("button", { name: /^(sign in|登录)$/i }).click();
  }

  error() {
    return this.page.getByTestId("login-error");
  }
}

/** The signed-in shell's top bar. */
export class TopBar {
  constructor(readonly page: Page) {}

  activeTenant() {
    return this.page.getByTestId("active-tenant");
  }

  /** On a phone the switcher is in the menu the ☰ button opens. */
  async switchTenant(name: string) {
    const toggle = this.page.getByTestId("nav-toggle");
    if ((await toggle.isVisible()) && (await toggle.getAttribute("aria-expanded")) !== "true")
      await toggle.click();
    await this.page.getByTestId("tenant-switcher").selectOption({ label: name });
  }

  /** Opens a page from one of the top bar's menus ("usage" or "admin"), as a user clicks through it. */
  async openFromMenu(menu: "usage" | "admin", link: string) {
    await this.page.getByTestId(`nav-menu-${menu}`).click();
    await this.page.getByRole("menu").getByRole("menuitem", { name: link, exact: true }).click();
  }

  async signOut() {
    await this.page.getByTestId("user-menu").locator("summary").click();
    await this.page.getByRole("button", { name: /sign out|退出登录/i }).click();
  }
}

/**
 * The agent drawer, as a user sees it: the composer, the messages, and what goes with a message (context chips,
 * files, the cards and tool calls of an answer).
 */
export class Drawer {
  constructor(readonly page: Page) {}
  panel = () => this.page.getByTestId("agent-drawer");
  input = () => this.page.getByTestId("agent-input");
  sendButton = () => this.page.getByTestId("agent-send");
  assistant = () => this.page.getByTestId("agent-message-assistant");
  user = () => this.page.getByTestId("agent-message-user");
  footers = () => this.page.getByTestId("agent-answer-footer");
  chips = () => this.page.getByTestId("agent-context-chip");
  files = () => this.page.getByTestId("agent-file");
  cards = (kind?: "kv" | "table" | "links") =>
    this.page.locator(
      kind ? `[data-testid="agent-card"][data-kind="${kind}"]` : '[data-testid="agent-card"]',
    );
  /** The last call of a tool in the conversation. */
  toolCard = (name: string) =>
    this.page.locator(`[data-testid="agent-tool-card"][data-tool-name="${name}"]`).last();

  async open() {
    if (!(await this.panel().isVisible())) await this.page.getByTestId("agent-drawer-toggle").click();
    await expect(this.panel()).toBeVisible();
  }

  /** Sends a message and returns the turn request's conversation id once the stream has started. */
  async send(text: string): Promise<string> {
    await this.input().fill(text);
    const response = this.page.waitForResponse(
      (r) => r.url().endsWith("/api/agent/turns") && r.request().method() === "POST",
    );
    await this.input().press("Enter");
    return (await response).headers()["x-conversation-id"] ?? "";
  }

  /** Sends a message and waits for its answer to finish; the request body as sent. */
  async sendAndWait(text: string): Promise<Record<string, unknown>> {
    await this.input().fill(text);
    const request = this.page.waitForRequest(
      (r) => r.url().endsWith("/api/agent/turns") && r.method() === "POST",
    );
    const footers = await this.footers().count();
    await this.input().press("Enter");
    const body = (await request).postDataJSON() as Record<string, unknown>;
    await expect(this.footers()).toHaveCount(footers + 1, { timeout: 20_000 });
    return body;
  }

  async chooseModel(alias: string) {
    await this.page.getByTestId("agent-model-select").selectOption(alias);
  }
}

export async function signInAs(page: Page, email: string) {
  const login = new LoginPage(page);
  await login.goto();
  await login.signIn(email);
  await expect(page).toHaveURL((url) => url.pathname === "/");
  await expect(page.getByTestId("user-menu")).toBeVisible();
}

/** A new API key of the signed-in admin's tenant (its secret, shown once). */
export async function apiKey(page: Page, baseURL: string | undefined, name: string): Promise<string> {
  const created = await page.request.post("/api/keys", {
    data: { name },
    headers: { origin: baseURL ?? "" },
  });
  expect(created.status()).toBe(201);
  return (await created.json()).secret;
}

/**
 * The schema pages' filter bar: "Add filter" opens its editor on a field (and an operator other than the field's
 * own); the value input is then `filter-<field>` (a range: `filter-<field>-min/-max`, dates `-from/-to`), and
 * `filter-apply` applies it.
 */
export async function openFilter(page: Page, field: string, operator?: string) {
  await page.getByTestId("filter-add").click();
  await page.getByTestId("filter-editor").getByTestId("filter-field").selectOption(field);
  if (operator) await page.getByTestId("filter-editor").getByTestId("filter-op").selectOption(operator);
}
