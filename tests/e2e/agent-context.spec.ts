import { expect, test } from "@playwright/test";
import { Drawer, signInAs } from "./pages";

test.use({ viewport: { width: 1280, height: 800 } });

test.describe("context for the agent", () => {
  test("Ask the assistant from a ledger row: the drawer opens with its chip, the answer reads the turn, the bubble keeps the chip", async ({
    page,
  }) => {
    await signInAs(page, "admin@acme.test");
    await page.goto("/dev/agent/turns");
    await page.getByTestId("data-row").first().locator("td").first().click();
    const detail = page.getByTestId("detail-drawer");
    await expect(detail).toBeVisible();
    const ask = detail.getByTestId("ask-assistant");
    await expect(ask).toHaveAccessibleName(/^Ask the assistant about Turn /);
    const turnId = (await ask.getAttribute("data-context-id"))!;
    expect(turnId).toMatch(/^[0-9a-f-]{36}$/);

    // By keyboard: the detail closes, the drawer opens with the chip and the composer has focus.
    await ask.focus();
    await page.keyboard.press("Enter");
    await expect(detail).toHaveCount(0);
    const drawer = new Drawer(page);
    await expect(drawer.panel()).toBeVisible();
    await expect(drawer.chips()).toHaveCount(1);
    await expect(drawer.chips().first()).toHaveAttribute("data-id", turnId);
    await expect(drawer.input()).toBeFocused();
    await page.getByTestId("agent-new-conversation").click();
    await expect(drawer.chips()).toHaveCount(1);

    const body = await drawer.sendAndWait("what happened in this turn?");
    expect(body.context).toEqual([{ type: "turn", id: turnId }]);
    await expect(drawer.chips()).toHaveCount(0);
    // The offline model names what it was given: the server's label for the turn, loaded with the admin's rights.
    await expect(drawer.assistant().last()).toContainText(`You attached Turn ${turnId.slice(0, 8)}`);
    const sent = drawer.user().last().getByTestId("agent-message-chip");
    await expect(sent).toHaveAttribute("data-id", turnId);

    // After a reload the chip comes back from the stored message, with the server's label.
    await page.reload();
    await expect(drawer.panel()).toBeVisible();
    const reloaded = drawer.user().last().getByTestId("agent-message-chip");
    await expect(reloaded).toHaveAttribute("data-id", turnId);
    await expect(reloaded).toContainText(`Turn ${turnId.slice(0, 8)}`);

    // A chip can be taken off again before sending (by keyboard, named for screen readers).
    await page.goto("/dev/agent/turns");
    await page.getByTestId("data-row").first().locator("td").first().click();
    await page.getByTestId("detail-drawer").getByTestId("ask-assistant").click();
    await expect(drawer.chips()).toHaveCount(1);
    const remove = drawer.chips().first().getByTestId("agent-context-chip-remove");
    await expect(remove).toHaveAccessibleName(/^Remove Turn .* from the context$/);
    await remove.focus();
    await page.keyboard.press("Enter");
    await expect(drawer.chips()).toHaveCount(0);
  });

  test("a turn's replay and a prompt version offer themselves too, and the answer names each", async ({
    page,
  }) => {
    await signInAs(page, "admin@acme.test");
    const rows = await (await page.request.get("/api/schema/agent-turns/rows?limit=1")).json();
    const turnId: string = rows.rows[0].id;
    const drawer = new Drawer(page);

    await page.goto(`/dev/agent/audit/${turnId}`);
    await page.getByTestId("replay-page").getByTestId("ask-assistant").click();
    await expect(drawer.chips()).toHaveCount(1);
    await expect(drawer.chips().first()).toHaveAttribute("data-type", "audit_turn");
    await page.getByTestId("agent-new-conversation").click();
    const body = await drawer.sendAndWait("summarise this trail");
    expect(body.context).toEqual([{ type: "audit_turn", id: turnId }]);
    await expect(drawer.assistant().last()).toContainText(`You attached Audit trail ${turnId.slice(0, 8)}`);

    await page.goto("/dev/agent/prompts/support/triage");
    // The open drawer covers the page's right side, where the version's buttons are: close it first, as a user would.
    await page.getByTestId("agent-drawer").getByRole("button", { name: "Close the assistant" }).click();
    const version = await page.getByTestId("prompt-version").getAttribute("data-version");
    await page.getByTestId("prompt-version").getByTestId("ask-assistant").click();
    await expect(drawer.chips().first()).toHaveAttribute("data-id", `support/triage@${version}`);
    await drawer.sendAndWait("what does this prompt ask for?");
    await expect(drawer.assistant().last()).toContainText(`You attached Prompt support/triage v${version}`);
  });

  test("an attached Markdown file is read into the answer; a file the server refuses shows its reason and is not sent", async ({
    page,
  }) => {
    await signInAs(page, "member@acme.test");
    const drawer = new Drawer(page);
    await drawer.open();
    await page.getByTestId("agent-new-conversation").click();
    const picker = page.getByTestId("agent-file-input");

    await picker.setInputFiles({
      name: "launch-notes.md",
      mimeType: "text/markdown",
      buffer: Buffer.from("# Launch notes\n\nThe launch codeword is PELICAN-42.\n"),
    });
    const notes = drawer.files().filter({ hasText: "launch-notes.md" });
    await expect(notes).toHaveAttribute("data-status", "done");
    await expect(notes).toContainText(/\d+ bytes/);

    // Says it is a PNG, is not one: the browser lets it through, the server refuses it by name.
    await picker.setInputFiles({
      name: "not-a-picture.png",
      mimeType: "image/png",
      buffer: Buffer.from("plain words, not an image"),
    });
    const fake = drawer.files().filter({ hasText: "not-a-picture.png" });
    await expect(fake).toHaveAttribute("data-status", "failed");
    await expect(fake.getByTestId("agent-file-error")).toContainText("not-a-picture.png is not a PNG image");

    // Too big: refused in the browser already, in the server's words, and never uploaded.
    const uploads: string[] = [];
    page.on("request", (r) => {
      if (r.url().endsWith("/api/agent/files") && r.method() === "POST") uploads.push(r.url());
    });
    await picker.setInputFiles({
      name: "huge.png",
      mimeType: "image/png",
      buffer: Buffer.concat([
        Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
        Buffer.alloc(5 * 1024 * 1024),
      ]),
    });
    const huge = drawer.files().filter({ hasText: "huge.png" });
    await expect(huge).toHaveAttribute("data-status", "failed");
    await expect(huge.getByTestId("agent-file-error")).toContainText("5 MB");
    expect(uploads).toEqual([]);

    // A file removed before sending is deleted on the server, freeing its share of the quota.
    await picker.setInputFiles({
      name: "scratch.txt",
      mimeType: "text/plain",
      buffer: Buffer.from("never mind"),
    });
    const scratch = drawer.files().filter({ hasText: "scratch.txt" });
    await expect(scratch).toHaveAttribute("data-status", "done");
    const deleted = page.waitForRequest(
      (r) => r.method() === "DELETE" && r.url().includes("/api/agent/files/"),
    );
    await scratch.getByTestId("agent-file-remove").click();
    await expect((await deleted).response().then((r) => r?.status())).resolves.toBe(204);
    await expect(scratch).toHaveCount(0);

    const body = await drawer.sendAndWait("what does my file say?");
    expect(body.attachments).toHaveLength(1);
    await expect(drawer.assistant().last()).toContainText("PELICAN-42");
    const sent = drawer.user().last().getByTestId("agent-message-file");
    await expect(sent).toHaveCount(1);
    await expect(sent).toHaveAttribute("data-name", "launch-notes.md");
    await expect(drawer.files()).toHaveCount(0);

    await page.reload();
    await expect(drawer.panel()).toBeVisible();
    await expect(drawer.user().last().getByTestId("agent-message-file")).toHaveAttribute(
      "data-name",
      "launch-notes.md",
    );
  });

  test("the orders tools answer with a table card and an order card, which offers its order as context", async ({
    page,
  }) => {
    await signInAs(page, "member@acme.test");
    const drawer = new Drawer(page);
    await drawer.open();
    await page.getByTestId("agent-new-conversation").click();

    await drawer.sendAndWait("show my open orders");
    const table = drawer.cards("table").last();
    await expect(table).toContainText("Orders (open)");
    const rows = table.getByTestId("agent-card-row");
    await expect(rows).toHaveCount(3);
    await expect(rows.first()).toContainText("A-1001");
    const total = rows.filter({ hasText: "A-1003" }).locator('td[data-type="money"]');
    await expect(total).toHaveText("$1,999.00");
    await expect(total).toHaveCSS("text-align", "right");

    await drawer.sendAndWait('look up order number "A-1001"');
    const order = drawer.cards("kv").last();
    await expect(order).toContainText("Order A-1001");
    await expect(order).toContainText("Wile E. Coyote");
    await expect(order).toContainText("$129.90");
    const use = order.getByTestId("agent-card-use-context");
    await expect(use).toHaveAccessibleName("Use Order A-1001 as context for your next message");
    await use.click();
    await expect(drawer.chips()).toHaveCount(1);
    await expect(drawer.chips().first()).toHaveAttribute("data-id", "A-1001");
    await expect(drawer.input()).toBeFocused();
    await expect(use).toHaveText("✓ In the context");

    const body = await drawer.sendAndWait("is this one late?");
    expect(body.context).toEqual([{ type: "order", id: "A-1001" }]);
    await expect(drawer.assistant().last()).toContainText("You attached Order A-1001");
    await expect(use).toHaveText("Use as context");

    // The cards come back with the conversation.
    await page.reload();
    await expect(drawer.panel()).toBeVisible();
    await expect(drawer.cards("table")).toHaveCount(1);
    await expect(drawer.cards("kv")).toHaveCount(1);
    await expect(drawer.cards("table").getByTestId("agent-card-row")).toHaveCount(3);
  });

  test("an admin asks which model cost most this week and who used it: a table card whose link opens the ledger with those filters", async ({
    page,
  }) => {
    await signInAs(page, "admin@acme.test");
    const drawer = new Drawer(page);
    await drawer.open();
    await page.getByTestId("agent-new-conversation").click();

    await drawer.sendAndWait("which model cost us most this week, and who used it?");
    const tables = drawer.cards("table");
    await expect(tables.first()).toBeVisible();
    await expect(tables.first().locator('td[data-type="money"]').first()).toHaveText(/^\$/);
    const toLedger = drawer.page
      .locator('[data-testid="agent-card"] [data-testid="agent-card-link"][href^="/dev/agent/turns?"]')
      .last();
    const href = (await toLedger.getAttribute("href"))!;
    expect(href).toMatch(/[?&]f\.[A-Za-z.]+=/);
    await toLedger.click();
    await expect(page).toHaveURL((url) => url.pathname === "/dev/agent/turns" && url.search.includes("f."));
    const expected = new URL(href, "http://x").searchParams;
    const url = new URL(page.url());
    for (const [name, value] of expected) expect(url.searchParams.get(name)).toBe(value);
    const filterName = [...expected.keys()].find((k) => k.startsWith("f."))!.slice(2);
    await expect(page.locator(`[data-testid="filter-chip"][data-name="${filterName}"]`)).toBeVisible();
    await expect(page.getByTestId("data-row").first()).toBeVisible();
  });
});
