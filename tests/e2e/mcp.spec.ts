import { expect, type Page, test } from "@playwright/test";
import { type FakeMcpServer, startFakeMcpServer } from "../fakes/mcp-server";
import { Drawer, signInAs, TopBar } from "./pages";

// The e2e server allows 127.0.0.1 (WEB_FETCH_ALLOW) and seals header values (MCP_SECRET_KEY), so the test MCP
// server this spec starts can be registered like any tenant's server.

const TOKEN = "Bearer e2e-mcp-secret-token-0123456789";
const SERVER = "helpdesk";

/** The MCP servers page, as a tenant admin sees it. */
class McpPage {
  constructor(readonly page: Page) {}
  server = (name = SERVER) => this.page.locator(`[data-testid="mcp-server"][data-server-name="${name}"]`);
  tool = (name: string) => this.server().locator(`[data-testid="mcp-tool"][data-tool-name="${name}"]`);

  async goto() {
    await this.page.goto("/dev/admin/mcp");
    await expect(this.page.getByTestId("admin-mcp")).toBeVisible();
  }

  async register(url: string) {
    const form = this.page.getByTestId("mcp-register-form");
    await form.getByTestId("field-name").fill(SERVER);
    await form.getByTestId("field-url").fill(url);
    await form.getByTestId("mcp-header-add").click();
    await form.getByTestId("mcp-header-name").fill("Authorization");
    await form.getByTestId("mcp-header-value").fill(TOKEN);
    await form.getByTestId("field-timeoutMs").fill("20");
    await form.getByTestId("mcp-register-submit").click();
  }

  /** Opens a tool's test call, types the arguments and runs it; returns the result box. */
  async testCall(tool: string, args: string) {
    const row = this.tool(tool);
    if (!(await row.getByTestId("mcp-test-call").isVisible()))
      await row.getByTestId("mcp-tool-test-toggle").click();
    await row.getByTestId("mcp-test-args").fill(args);
    await row.getByTestId("mcp-test-run").click();
    return row.getByTestId("mcp-test-result");
  }
}

let mcp: FakeMcpServer;
test.beforeAll(async () => {
  mcp = await startFakeMcpServer({ requireHeader: { name: "authorization", value: TOKEN } });
});
test.afterAll(async () => {
  await mcp?.close();
});

test.describe
  .serial("tenant MCP servers", () => {
    test("an admin registers a server, sees its tools and status, and the header's value is never shown again", async ({
      page,
    }) => {
      await signInAs(page, "admin@acme.test");
      await new TopBar(page).openFromMenu("admin", "MCP servers");
      await expect(page).toHaveURL(/\/dev\/admin\/mcp$/);
      await expect(page).toHaveTitle("MCP servers · Tollgate");
      const admin = new McpPage(page);
      await expect(page.getByTestId("mcp-servers-none")).toBeVisible();

      await admin.register(mcp.url);
      const server = admin.server();
      await expect(server).toBeVisible({ timeout: 20_000 });
      await expect(server.getByTestId("mcp-server-health")).toHaveText("reachable");
      await expect(server.getByTestId("mcp-server-tool-count")).toHaveText(String(mcp.toolNames().length));
      await expect(server.getByTestId("mcp-server-latency")).toContainText("ms");
      await expect(server).toContainText("Authorization");
      // The new server opens on its tools: each with the name the model calls it by.
      for (const tool of ["create_ticket", "echo", "docs.search", "failing_lookup"])
        await expect(admin.tool(tool)).toBeVisible();
      await expect(admin.tool("echo")).toContainText(`${SERVER}__echo`);
      // The form forgot the value; the page and the API show the header's name only.
      await expect(page.getByTestId("mcp-header-row")).toHaveCount(0);
      expect(await page.content()).not.toContain(TOKEN);
      const listed = await page.request.get("/api/mcp/servers");
      expect(await listed.text()).not.toContain("e2e-mcp-secret-token");
      // Tollgate sent the header it was given to the server.
      expect(mcp.requests.some((r) => r.headers.authorization === TOKEN)).toBe(true);

      // A bad URL is refused with the reason under the field, and nothing is registered.
      const form = page.getByTestId("mcp-register-form");
      await form.getByTestId("field-name").fill("broken");
      await form.getByTestId("field-url").fill("not a url");
      await form.getByTestId("mcp-register-submit").click();
      await expect(form.getByTestId("field-error-url")).toBeVisible();
      await expect(admin.server("broken")).toHaveCount(0);
    });

    test("an admin changes a tool's settings, saved at once and kept after a reload", async ({ page }) => {
      await signInAs(page, "admin@acme.test");
      const admin = new McpPage(page);
      await admin.goto();
      await admin.server().getByTestId("mcp-server-tools-toggle").click();
      const echo = admin.tool("echo");
      await echo.getByTestId("mcp-tool-confirm").check();
      await expect(echo.getByTestId("mcp-tool-saved")).toContainText("Saved");
      const lookup = admin.tool("failing_lookup");
      await lookup.getByTestId("mcp-tool-role-member").uncheck();
      await expect(lookup.getByTestId("mcp-tool-saved")).toContainText("Saved");
      // The last role left cannot be taken away (switching the tool off is how no one calls it).
      await expect(lookup.getByTestId("mcp-tool-role-admin")).toBeDisabled();
      const slow = admin.tool("slow_job");
      await slow.getByTestId("mcp-tool-enabled").uncheck();
      await expect(slow).toHaveAttribute("data-enabled", "false");

      await page.reload();
      await admin.server().getByTestId("mcp-server-tools-toggle").click();
      await expect(admin.tool("echo").getByTestId("mcp-tool-confirm")).toBeChecked();
      await expect(admin.tool("failing_lookup").getByTestId("mcp-tool-role-member")).not.toBeChecked();
      await expect(admin.tool("slow_job").getByTestId("mcp-tool-enabled")).not.toBeChecked();
    });

    test("a test call runs a tool with JSON arguments started from its schema, and shows the result or the error", async ({
      page,
    }) => {
      await signInAs(page, "admin@acme.test");
      const admin = new McpPage(page);
      await admin.goto();
      await admin.server().getByTestId("mcp-server-tools-toggle").click();
      const echo = admin.tool("echo");
      await echo.getByTestId("mcp-tool-test-toggle").click();
      // Pre-filled from the schema: the required `text`.
      await expect(echo.getByTestId("mcp-test-args")).toHaveValue(/"text": ""/);
      // Not JSON: said under the editor, and Run waits.
      await echo.getByTestId("mcp-test-args").fill('{"text": ');
      await expect(echo.getByTestId("mcp-test-invalid")).toContainText("Not valid JSON");
      await expect(echo.getByTestId("mcp-test-run")).toBeDisabled();

      const result = await admin.testCall("echo", '{"text": "ping from the admin page"}');
      await expect(result).toHaveAttribute("data-ok", "true");
      await expect(result.getByTestId("mcp-test-output")).toContainText("ping from the admin page");
      expect(
        mcp.calls.some((c) => c.name === "echo" && c.arguments.text === "ping from the admin page"),
      ).toBe(true);

      const failed = await admin.testCall("failing_lookup", '{"id": "X-404"}');
      await expect(failed).toHaveAttribute("data-ok", "false");
      await expect(failed.getByTestId("mcp-test-output")).not.toBeEmpty();
    });

    test("in the drawer, a tool that requires confirmation asks first: Deny does not run it, Approve does", async ({
      page,
    }) => {
      await signInAs(page, "admin@acme.test");
      const drawer = new Drawer(page);
      await drawer.open();

      await drawer.send('please echo "keep this to yourself"');
      let card = drawer.toolCard(`${SERVER}__echo`);
      await expect(card).toHaveAttribute("data-confirmation", "pending");
      await expect(card.getByTestId("agent-confirm-args")).toContainText("keep this to yourself");
      await expect(card.getByTestId("agent-confirm-countdown")).toContainText(/\d+ s left/);
      await card.getByTestId("agent-confirm-deny").click();
      await expect(card.getByTestId("agent-confirm-decision")).toHaveAttribute("data-decision", "deny");
      await expect(card).toHaveAttribute("data-status", "error");
      await expect(page.getByTestId("agent-answer-footer").last()).toBeVisible();
      expect(mcp.calls.some((c) => c.arguments.text === "keep this to yourself")).toBe(false);

      await drawer.send('please echo "approved words"');
      card = drawer.toolCard(`${SERVER}__echo`);
      await expect(card).toHaveAttribute("data-confirmation", "pending");
      // By keyboard: the Approve button takes focus and Enter.
      await card.getByRole("button", { name: `Approve the call of ${SERVER}__echo` }).focus();
      await page.keyboard.press("Enter");
      await expect(card.getByTestId("agent-confirm-decision")).toHaveAttribute("data-decision", "approve");
      await expect(card).toHaveAttribute("data-status", "ok");
      await expect(card).toContainText("approved words");
      await expect(page.getByTestId("agent-answer-footer").last()).toBeVisible();
      expect(mcp.calls.some((c) => c.arguments.text === "approved words")).toBe(true);

      // After a reload the decisions are still there (the drawer reopens by itself).
      await page.reload();
      await expect(page.getByTestId("agent-drawer")).toBeVisible();
      const decisions = page.getByTestId("agent-confirm-decision");
      await expect(decisions).toHaveCount(2);
      await expect(decisions.first()).toHaveAttribute("data-decision", "deny");
      await expect(decisions.last()).toHaveAttribute("data-decision", "approve");
    });

    test("the page fits a phone's width", async ({ page }) => {
      await page.setViewportSize({ width: 360, height: 780 });
      await signInAs(page, "admin@acme.test");
      const admin = new McpPage(page);
      await admin.goto();
      await admin.server().getByTestId("mcp-server-tools-toggle").click();
      await admin.tool("create_ticket").getByTestId("mcp-tool-test-toggle").click();
      await expect(admin.tool("create_ticket").getByTestId("mcp-test-args")).toBeVisible();
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow).toBeLessThanOrEqual(0);
    });

    test("a member gets 403 on the page and the routes", async ({ page }) => {
      await signInAs(page, "member@acme.test");
      expect((await page.goto("/dev/admin/mcp"))?.status()).toBe(403);
      expect((await page.request.get("/api/mcp/servers")).status()).toBe(403);
    });

    test("an admin deletes a server after confirming, and its tools leave", async ({ page }) => {
      await signInAs(page, "admin@acme.test");
      const admin = new McpPage(page);
      await admin.goto();
      await admin.server().getByTestId("mcp-server-delete").click();
      await admin.server().getByTestId("mcp-server-delete-confirm").click();
      await expect(admin.server()).toHaveCount(0);
      await expect(page.getByTestId("mcp-servers-none")).toBeVisible();
    });
  });
