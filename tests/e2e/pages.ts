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

  async switchTenant(name: string) {
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
