import { type Browser, type BrowserContext, expect, type Page, test } from "@playwright/test";
import { LoginPage, signInAs, TopBar } from "./pages";
import { shotPath } from "./shots";

// The screenshot test runs every time (into test-results/screens); E2E_SCREENSHOTS=1 refreshes the README's.
async function shot(page: Page, name: string) {
  // From the top, so the sticky top bar is where a reader sees it.
  await page.evaluate(() => window.scrollTo(0, 0));
  // Every run renders the screens at each width and theme; only E2E_SCREENSHOTS=1 replaces the README's images.
  await page.screenshot({ path: shotPath(name), fullPage: true });
}

// Every run makes its own people and tenants: the suite shares one database, and other spec files sign in
// with the demo accounts, so no demo account's role, membership or password is changed here.
const RUN = `${Date.now().toString(36).slice(-4)}${Math.floor(Math.random() * 100)}`;
const PASSWORD = "a long invitee password";
const emailFor = (who: string) => `${who}-${RUN}@example.test`;

/** One of the schema lists on a page, by its page key ("admin-members", "admin-invitations", "admin-tenants"). */
class SchemaList {
  constructor(
    readonly page: Page,
    readonly key: string,
  ) {}
  root() {
    return this.page.locator(`[data-testid="schema-page"][data-schema-key="${this.key}"]`);
  }
  row(text: string) {
    return this.root().getByTestId("data-row").filter({ hasText: text });
  }
  async loaded() {
    await expect(this.root().locator("table")).toHaveAttribute("aria-busy", "false");
  }
  /** The row's role or status badge. */
  badge(text: string) {
    return this.row(text).locator("[data-tone]");
  }
  /** Runs a row action; one that asks first (`asks`) is confirmed in its dialog, its input filled when given. */
  async act(text: string, action: string, asks: { input?: string } | false = false) {
    await this.row(text).getByTestId(`row-action-${action}`).click();
    if (!asks) return;
    const dialog = this.page.getByTestId("row-action-dialog");
    if (asks.input !== undefined) await dialog.getByTestId("row-action-input").fill(asks.input);
    await dialog.getByTestId("row-action-confirm").click();
    await expect(dialog).toHaveCount(0);
  }
}

class MembersScreen {
  readonly members: SchemaList;
  readonly invitations: SchemaList;
  constructor(readonly page: Page) {
    this.members = new SchemaList(page, "admin-members");
    this.invitations = new SchemaList(page, "admin-invitations");
  }
  async goto() {
    await this.page.goto("/dev/admin/members");
    await this.members.loaded();
  }
  /** Invites through the form; returns the link shown once. */
  async invite(email: string, role: "member" | "admin" = "member") {
    const form = this.page.getByTestId("invite-form");
    await form.getByTestId("field-email").fill(email);
    await form.getByTestId("field-role").selectOption(role);
    await form.getByTestId("invite-submit").click();
    const link = this.page.getByTestId("invite-link");
    await expect(link).toBeVisible();
    return (await link.textContent()) ?? "";
  }
}

/** The public invitation page, in a browser context of its own (the invitee's). */
class InvitePage {
  constructor(readonly page: Page) {}
  async open(link: string) {
    // The path only: the link's origin is the server's, and this browser's cookies belong to the baseURL.
    await this.page.goto(new URL(link).pathname);
  }
  async acceptAsNewcomer(name: string, password: string) {
    const form = this.page.getByTestId("accept-form");
    await form.getByTestId("field-name").fill(name);
    await form.getByTestId("field-password").fill(password);
    await form.getByTestId("field-confirmPassword").fill(password);
    await form.getByTestId("accept-submit").click();
  }
}

const json = { "content-type": "application/json" };

/** The super admin creates a tenant and makes it their active one (API calls in root's signed-in context). */
async function createTenantAsRoot(root: Page, name: string): Promise<string> {
  const res = await root.request.post("/api/admin/tenants", { data: { name }, headers: json });
  expect(res.status()).toBe(201);
  const { tenant } = (await res.json()) as { tenant: { id: string } };
  expect((await root.request.post("/api/session/tenant", { data: { tenantId: tenant.id } })).ok()).toBe(true);
  return tenant.id;
}

/** An invitation made through the API by the signed-in admin of the active tenant; returns its link. */
async function inviteByApi(admin: Page, email: string, role: "member" | "admin") {
  const res = await admin.request.post("/api/admin/invitations", { data: { email, role } });
  expect(res.status()).toBe(201);
  return (await res.json()) as { link: string; invitation: { id: string } };
}

/** A newcomer accepts a link in a fresh browser context and ends up signed in there. */
async function joinInNewContext(browser: Browser, baseURL: string, link: string, name: string) {
  const context = await browser.newContext({ baseURL });
  const page = await context.newPage();
  const invite = new InvitePage(page);
  await invite.open(link);
  await invite.acceptAsNewcomer(name, PASSWORD);
  await expect(page).toHaveURL((url) => url.pathname === "/");
  await expect(page.getByTestId("user-menu")).toContainText(name);
  return { context, page };
}

async function signInWithPassword(page: Page, email: string, password: string) {
  const login = new LoginPage(page);
  await login.goto();
  await login.signIn(email, password);
}

test.describe("tenant and member administration", () => {
  const contexts: BrowserContext[] = [];
  test.afterEach(async () => {
    for (const context of contexts.splice(0)) await context.close();
  });

  test("an invited colleague joins by link, is promoted without signing out, and loses access when removed", async ({
    page,
    browser,
    baseURL,
  }) => {
    test.setTimeout(120_000);
    const email = emailFor("colleague");
    const name = `Colleague ${RUN}`;
    await signInAs(page, "admin@acme.test");
    await new TopBar(page).openFromMenu("admin", "Members");
    const screen = new MembersScreen(page);
    await screen.members.loaded();

    // (a) The admin invites; the link is shown once with its expiry, and the invitation is pending.
    const link = await screen.invite(email);
    expect(link).toMatch(/^https?:\/\/[^/]+\/invite\/[\w-]{20,}$/);
    await expect(page.getByTestId("invite-valid-until")).toContainText("Valid until");
    await expect(screen.invitations.row(email)).toBeVisible();
    await expect(screen.invitations.row(email)).toContainText("admin@acme.test");

    // A second browser (the colleague's) opens it, sees what it offers, and joins as a new account.
    const theirs = await browser.newContext({ baseURL });
    contexts.push(theirs);
    const colleague = await theirs.newPage();
    const invite = new InvitePage(colleague);
    await invite.open(link);
    await expect(colleague.getByTestId("invite-tenant")).toHaveText("Acme");
    await expect(colleague.getByTestId("invite-email")).toHaveText(email);
    await expect(colleague.getByTestId("invite-role")).toHaveText("Member");
    await invite.acceptAsNewcomer(name, PASSWORD);
    await expect(colleague).toHaveURL((url) => url.pathname === "/");
    await expect(colleague.getByTestId("user-menu")).toContainText(name);

    // The link is used up now: opening it again says so.
    const again = await theirs.newPage();
    await new InvitePage(again).open(link);
    await expect(again.getByTestId("invite-refused")).toHaveAttribute("data-status", "410");
    await expect(again.getByTestId("invite-refused-message")).toContainText("already been used");
    await again.close();

    // They sign out, and back in with the password they chose, through the sign-in page.
    await new TopBar(colleague).signOut();
    await expect(colleague).toHaveURL(/\/login/);
    await signInWithPassword(colleague, email, PASSWORD);
    await expect(colleague).toHaveURL((url) => url.pathname === "/");
    await expect(colleague.getByTestId("home-scope")).toContainText("Acme");

    // The admin sees them among the members, no longer among the pending invitations.
    await screen.goto();
    await expect(screen.members.badge(email)).toHaveText(/^member$/i);
    await expect(screen.invitations.row(email)).toHaveCount(0);

    // (b) Promoted to admin: their open session can use the admin pages on its next request.
    expect((await colleague.goto("/dev/admin/keys"))?.status()).toBe(403);
    await screen.members.act(email, "make-admin");
    await expect(screen.members.badge(email)).toHaveText(/^admin$/i);
    await expect(screen.members.row(email).getByTestId("row-action-make-member")).toBeVisible();
    expect((await colleague.goto("/dev/admin/keys"))?.status()).toBe(200);
    await expect(colleague.getByTestId("admin-keys")).toBeVisible();

    // (c) Removed (after confirming): their next navigation and API call have lost access.
    await screen.members.row(email).getByTestId("row-action-remove").click();
    const dialog = page.getByTestId("row-action-dialog");
    await expect(dialog.getByTestId("row-action-confirm-text")).toContainText(email);
    await dialog.getByTestId("row-action-cancel").click();
    await expect(dialog).toHaveCount(0);
    await expect(screen.members.row(email)).toBeVisible();
    await screen.members.act(email, "remove", {});
    await expect(screen.members.row(email)).toHaveCount(0);
    expect((await colleague.goto("/dev/admin/keys"))?.status()).toBe(403);
    expect((await colleague.request.get("/api/admin/members")).status()).toBe(403);
    await colleague.goto("/");
    await expect(colleague.getByTestId("home-scope")).not.toContainText("Acme");
  });

  test("the last admin of a tenant cannot demote themselves: the refusal is shown", async ({
    page,
    browser,
    baseURL,
  }) => {
    test.setTimeout(60_000);
    // A fresh tenant with exactly one admin (the demo tenants' admins are shared with other spec files).
    await signInAs(page, "root@tollgate.test");
    await createTenantAsRoot(page, `Solo ${RUN}`);
    const email = emailFor("solo-admin");
    const { link } = await inviteByApi(page, email, "admin");
    const { context, page: soloAdmin } = await joinInNewContext(browser, baseURL!, link, `Solo ${RUN}`);
    contexts.push(context);

    const screen = new MembersScreen(soloAdmin);
    await screen.goto();
    await screen.members.act(email, "make-member");
    const error = soloAdmin.getByTestId("row-action-error");
    await expect(error).toContainText("Make member did not work");
    await expect(error).toContainText("a tenant needs at least one admin");
    await expect(screen.members.row(email).getByTestId("row-action-make-member")).toBeVisible();
  });

  test("changing the password needs the current one, keeps this session and signs out the others", async ({
    page,
    browser,
    baseURL,
  }) => {
    test.setTimeout(90_000);
    // A user of this spec's own (never a demo account: other spec files sign in with the demo password).
    await signInAs(page, "root@tollgate.test");
    await createTenantAsRoot(page, `Passwords ${RUN}`);
    const email = emailFor("password");
    const { link } = await inviteByApi(page, email, "member");
    const { context, page: here } = await joinInNewContext(browser, baseURL!, link, `Pat ${RUN}`);
    contexts.push(context);
    const elsewhereContext = await browser.newContext({ baseURL });
    contexts.push(elsewhereContext);
    const elsewhere = await elsewhereContext.newPage();
    await signInWithPassword(elsewhere, email, PASSWORD);
    await expect(elsewhere).toHaveURL((url) => url.pathname === "/");

    // The account page is one click away in the user menu.
    await here.getByTestId("user-menu").locator("summary").click();
    await here.getByTestId("account-link").click();
    await expect(here.getByTestId("account-email")).toHaveText(email);
    const form = here.getByTestId("change-password-form");
    const newPassword = "another long password";

    await form.getByTestId("field-currentPassword").fill("not my password");
    await form.getByTestId("field-newPassword").fill(newPassword);
    await form.getByTestId("field-confirmPassword").fill(newPassword);
    await form.getByTestId("change-password-submit").click();
    await expect(form.getByTestId("field-error-currentPassword")).toContainText("not your current password");
    await expect(form.getByTestId("field-currentPassword")).toHaveAttribute("aria-invalid", "true");

    await form.getByTestId("field-currentPassword").fill(PASSWORD);
    await form.getByTestId("field-newPassword").fill(newPassword);
    await form.getByTestId("field-confirmPassword").fill(newPassword);
    await form.getByTestId("change-password-submit").click();
    await expect(form.getByTestId("change-password-done")).toContainText("Password changed");
    await expect(form.getByTestId("field-error-currentPassword")).toHaveCount(0);

    // This context is still signed in; the other one is sent to the sign-in page on its next request.
    await here.reload();
    await expect(here.getByTestId("account-email")).toHaveText(email);
    await elsewhere.goto("/");
    await expect(elsewhere).toHaveURL(/\/login/);
    await signInWithPassword(elsewhere, email, newPassword);
    await expect(elsewhere).toHaveURL((url) => url.pathname === "/");

    // "Sign out of other sessions" ends that new session too, and again keeps this one.
    await here.getByTestId("sign-out-others").click();
    await expect(here.getByTestId("sign-out-others-done")).toContainText("signed out");
    await elsewhere.goto("/account");
    await expect(elsewhere).toHaveURL(/\/login/);
    await here.reload();
    await expect(here.getByTestId("account-email")).toHaveText(email);
  });

  test("the super admin disables a tenant: its only member cannot sign in until it is enabled again", async ({
    page,
    browser,
    baseURL,
  }) => {
    test.setTimeout(90_000);
    const tenantName = `Paused ${RUN}`;
    await signInAs(page, "root@tollgate.test");
    await createTenantAsRoot(page, tenantName);
    const email = emailFor("paused");
    const { link } = await inviteByApi(page, email, "member");
    const joined = await joinInNewContext(browser, baseURL!, link, `Paula ${RUN}`);
    contexts.push(joined.context);

    await new TopBar(page).openFromMenu("admin", "Tenants");
    const tenants = new SchemaList(page, "admin-tenants");
    await tenants.loaded();
    // Acme has the seeded sample turns: its last activity is a time, its spend a sum.
    await expect(tenants.row("acme").locator("time")).toBeVisible();
    await expect(tenants.badge(tenantName)).toHaveText(/^active$/i);
    await tenants.act(tenantName, "disable", {});
    await expect(tenants.badge(tenantName)).toHaveText(/^disabled$/i);
    await expect(tenants.row(tenantName).getByTestId("row-action-enable")).toBeVisible();

    // The member's open session loses the tenant at once, and a new sign-in is refused. (A forwarded address
    // of its own, so this refusal does not count against the address every other test signs in from.)
    await joined.page.goto("/");
    await expect(joined.page.getByTestId("home-scope")).not.toContainText(tenantName);
    const loginContext = await browser.newContext({
      baseURL,
      extraHTTPHeaders: { "x-forwarded-for": "198.51.100.7" },
    });
    contexts.push(loginContext);
    const login = await loginContext.newPage();
    await signInWithPassword(login, email, PASSWORD);
    await expect(login.getByTestId("login-error")).toBeVisible();
    await expect(login).toHaveURL(/\/login/);

    await tenants.act(tenantName, "enable");
    await expect(tenants.badge(tenantName)).toHaveText(/^active$/i);
    await signInWithPassword(login, email, PASSWORD);
    await expect(login).toHaveURL((url) => url.pathname === "/");
    await expect(login.getByTestId("home-scope")).toContainText(tenantName);

    // Rename through the row action's own small form.
    await tenants.act(tenantName, "rename", { input: `Resumed ${RUN}` });
    await expect(tenants.row(`Resumed ${RUN}`)).toBeVisible();
    await expect(tenants.row(tenantName)).toHaveCount(0);
  });

  test("the admin-change log lists what an admin did; a member gets 403 there", async ({
    page,
    browser,
    baseURL,
  }) => {
    await signInAs(page, "admin@acme.test");
    const email = emailFor("revoked");
    const { invitation, link } = await inviteByApi(page, email, "member");
    const screen = new MembersScreen(page);
    await screen.goto();
    await screen.invitations.act(email, "revoke", {});
    await expect(screen.invitations.row(email)).toHaveCount(0);
    // A revoked link tells its visitor so.
    const visitor = await browser.newContext({ baseURL });
    contexts.push(visitor);
    const visitorPage = await visitor.newPage();
    await visitorPage.goto(new URL(link).pathname);
    await expect(visitorPage.getByTestId("invite-refused-message")).toContainText("was revoked");

    await new TopBar(page).openFromMenu("admin", "Admin changes");
    await expect(page).toHaveURL((url) => url.pathname === "/dev/admin/changes");
    await expect(page.getByTestId("schema-page")).toHaveAttribute("data-schema-key", "admin-changes");
    await page.goto(`/dev/admin/changes?f.objectId=${invitation.id}`);
    const rows = page.getByTestId("data-row");
    await expect(rows).toHaveCount(2);
    await expect(rows.nth(0)).toContainText("invitation.revoked");
    await expect(rows.nth(1)).toContainText("invitation.created");
    await expect(rows.nth(0)).toContainText("admin@acme.test");

    const member = await browser.newContext({ baseURL });
    contexts.push(member);
    const memberPage = await member.newPage();
    await signInAs(memberPage, "member@acme.test");
    expect((await memberPage.goto("/dev/admin/changes"))?.status()).toBe(403);
    expect((await memberPage.request.get("/api/schema/admin-changes/rows")).status()).toBe(403);
    expect((await memberPage.goto("/dev/admin/members"))?.status()).toBe(403);
    expect((await memberPage.goto("/dev/admin/tenants"))?.status()).toBe(403);
  });

  test("an unknown invitation link is explained to a signed-out visitor", async ({ page }) => {
    const res = await page.goto("/invite/not-a-real-token-at-all");
    expect(res?.status()).toBe(200);
    await expect(page).toHaveURL(/\/invite\//);
    await expect(page.getByTestId("invite-refused")).toHaveAttribute("data-status", "404");
    await expect(page.getByTestId("invite-refused-message")).toContainText("not a Tollgate invitation");
  });

  test("screenshots of the administration screens", async ({ page, browser, baseURL }) => {
    test.setTimeout(90_000);
    const newPage = async (options: Parameters<Browser["newContext"]>[0] = {}) => {
      const context = await browser.newContext({
        baseURL,
        viewport: { width: 1280, height: 900 },
        ...options,
      });
      contexts.push(context);
      return context.newPage();
    };

    await page.setViewportSize({ width: 1280, height: 900 });
    await signInAs(page, "root@tollgate.test");
    // A disabled tenant too, so the list shows both states and both actions.
    const { tenant } = await (
      await page.request.post("/api/admin/tenants", { data: { name: `Initech ${RUN}` } })
    ).json();
    await page.request.patch(`/api/admin/tenants/${tenant.id}`, { data: { disabled: true } });
    await page.goto("/dev/admin/tenants");
    await new SchemaList(page, "admin-tenants").loaded();
    await shot(page, "admin-tenants");

    const admin = await newPage();
    await signInAs(admin, "admin@acme.test");
    const screen = new MembersScreen(admin);
    await screen.goto();
    await screen.invite(emailFor("newcomer"), "member");
    await expect(screen.invitations.row(emailFor("newcomer"))).toBeVisible();
    await shot(admin, "admin-members");

    const visitor = await newPage();
    await new InvitePage(visitor).open(await screen.invite(emailFor("shot"), "admin"));
    await expect(visitor.getByTestId("accept-form")).toBeVisible();
    await shot(visitor, "invite-accept");

    await admin.goto("/account");
    await expect(admin.getByTestId("account-email")).toBeVisible();
    await shot(admin, "account");

    await admin.goto("/dev/admin/changes");
    await expect(admin.getByTestId("data-row").first()).toBeVisible();
    await shot(admin, "admin-changes");

    // Dark and 360 px wide: the members screen on a phone.
    const phone = await newPage({ viewport: { width: 360, height: 780 }, colorScheme: "dark" });
    await signInAs(phone, "admin@acme.test");
    const phoneScreen = new MembersScreen(phone);
    await phoneScreen.goto();
    await phoneScreen.invitations.loaded();
    await shot(phone, "admin-members-mobile-dark");
  });
});
