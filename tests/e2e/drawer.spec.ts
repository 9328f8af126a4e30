import { type APIRequestContext, expect, test } from "@playwright/test";
import { FAKE_UPSTREAM } from "../../playwright.config";
import { Drawer, signInAs } from "./pages";

const enqueue = (request: APIRequestContext, ...replies: unknown[]) =>
  request.post(`${FAKE_UPSTREAM}/__control/enqueue`, { data: { replies } });

test.describe("the agent drawer", () => {
  test.beforeEach(async ({ request }) => {
    await request.post(`${FAKE_UPSTREAM}/__control/reset`);
  });

  test("a message gets an answer that streams in, with a footer naming the model", async ({ page }) => {
    await signInAs(page, "member@acme.test");
    const drawer = new Drawer(page);
    await drawer.open();
    await expect(page.getByTestId("agent-suggestion").first()).toBeVisible();
    await drawer.send("hello there, who are you?");
    await expect(drawer.user().last()).toHaveText("hello there, who are you?");
    // The bubble fills in over time: first some words, later the whole answer.
    await expect(drawer.assistant().last()).toContainText("I am the offline demo model");
    const early = ((await drawer.assistant().last().textContent()) ?? "").length;
    await expect(drawer.footers().last()).toContainText("offline-demo");
    const full = ((await drawer.assistant().last().textContent()) ?? "").length;
    expect(full).toBeGreaterThan(early);
    await expect(drawer.input()).toBeFocused();
  });

  test("a tool call shows as a card with its result, and the answer uses the real rows", async ({ page }) => {
    await signInAs(page, "member@acme.test");
    const drawer = new Drawer(page);
    await drawer.open();
    await drawer.send("What are my open orders?");
    const card = page.locator('[data-testid="agent-tool-card"][data-tool-name="query_orders"]').last();
    await expect(card).toBeVisible();
    await expect(card).toContainText("A-1001");
    await expect(drawer.assistant().last()).toContainText("A-1006");
    await expect(drawer.footers().last()).toContainText("offline-demo");
  });

  test("Stop in the middle keeps the partial answer and the ledger row says stopped", async ({ page }) => {
    await signInAs(page, "member@acme.test");
    const drawer = new Drawer(page);
    await drawer.open();
    const conversationId = await drawer.send(
      "Tell me everything you can about this workspace, in as many words as you like.",
    );
    await expect(drawer.assistant().last()).toContainText("offline");
    await expect(drawer.sendButton()).toHaveText(/stop/i);
    await drawer.sendButton().click();
    await expect(drawer.footers().last()).toContainText(/stopped/i);
    const partial = (await drawer.assistant().last().textContent()) ?? "";
    expect(partial.length).toBeGreaterThan(0);
    expect(partial).not.toContain("I can use these tools");
    await expect(drawer.sendButton()).toHaveText(/send/i);

    const conversation = await (await page.request.get(`/api/agent/conversations/${conversationId}`)).json();
    const turnId = conversation.messages.at(-1).turnId;
    const turn = await (await page.request.get(`/api/agent/turns/${turnId}`)).json();
    expect(turn.turn.status).toBe("stopped");
  });

  test("after a reload the conversation is back", async ({ page }) => {
    await signInAs(page, "member@globex.test");
    const drawer = new Drawer(page);
    await drawer.open();
    await drawer.send("What time is it?");
    await expect(drawer.footers().last()).toBeVisible();
    const answer = (await drawer.assistant().last().textContent()) ?? "";
    await page.reload();
    await expect(drawer.panel()).toBeVisible();
    await expect(drawer.user().last()).toHaveText("What time is it?");
    await expect(drawer.assistant().last()).toHaveText(answer);
  });

  test("another user opening the first user's conversation id gets 404", async ({ page, browser }) => {
    await signInAs(page, "admin@acme.test");
    const drawer = new Drawer(page);
    await drawer.open();
    const conversationId = await drawer.send("private note for myself");
    await expect(drawer.footers().last()).toBeVisible();
    expect((await page.request.get(`/api/agent/conversations/${conversationId}`)).status()).toBe(200);

    const other = await browser.newContext();
    const otherPage = await other.newPage();
    await signInAs(otherPage, "member@acme.test");
    const res = await otherPage.request.get(`/api/agent/conversations/${conversationId}`);
    expect(res.status()).toBe(404);
    const sneak = await otherPage.request.post("/api/agent/turns", {
      data: { conversationId, message: "let me in" },
    });
    expect(sneak.status()).toBe(404);
    await other.close();
  });

  test("switching the model changes the model named in the footer", async ({ page, request }) => {
    await signInAs(page, "multi@tollgate.test");
    const drawer = new Drawer(page);
    await drawer.open();
    await drawer.send("first, from the demo model");
    await expect(drawer.footers().last()).toContainText("offline-demo");
    await drawer.chooseModel("gpt-fake");
    await enqueue(request, {
      kind: "text",
      text: "Hello from the fake upstream.",
      model: "gpt-4o-mini-2024-07-18",
    });
    await drawer.send("second, from the other model");
    await expect(drawer.assistant().last()).toHaveText("Hello from the fake upstream.");
    await expect(drawer.footers().last()).toContainText("gpt-4o-mini-2024-07-18");
  });

  test("an upstream failure shows the error state, and Retry works", async ({ page, request }) => {
    await signInAs(page, "admin@globex.test");
    const drawer = new Drawer(page);
    await drawer.open();
    await drawer.chooseModel("gpt-fake");
    await enqueue(
      request,
      { kind: "error", status: 500, message: "the upstream is on fire" },
      { kind: "text", text: "Recovered answer." },
    );
    await drawer.send("are you there?");
    await expect(page.getByTestId("agent-error")).toBeVisible();
    await expect(page.getByTestId("agent-error")).toContainText("the upstream is on fire");
    await page.getByTestId("agent-retry").click();
    await expect(drawer.assistant().last()).toHaveText("Recovered answer.");
    await expect(page.getByTestId("agent-error")).toHaveCount(0);
  });

  test("conversations can be started, switched, renamed and deleted with a confirmation", async ({
    page,
  }) => {
    await signInAs(page, "admin@acme.test");
    const drawer = new Drawer(page);
    await drawer.open();
    await page.getByTestId("agent-new-conversation").click();
    await drawer.send("first topic: the weather");
    await expect(drawer.footers().last()).toBeVisible();
    await page.getByTestId("agent-new-conversation").click();
    await drawer.send("second topic: invoices");
    await expect(drawer.footers().last()).toBeVisible();

    await page.getByTestId("agent-conversations-toggle").click();
    const first = page.getByTestId("agent-conversation-item").filter({ hasText: "first topic" });
    await first.getByTestId("agent-conversation-open").click();
    await expect(drawer.user().last()).toHaveText("first topic: the weather");

    await page.getByTestId("agent-conversations-toggle").click();
    await first.getByTestId("agent-rename").click();
    await page.getByTestId("agent-rename-input").fill("Weather notes");
    await page.getByTestId("agent-rename-save").click();
    await expect(
      page.getByTestId("agent-conversation-item").filter({ hasText: "Weather notes" }),
    ).toBeVisible();

    const renamed = page.getByTestId("agent-conversation-item").filter({ hasText: "Weather notes" });
    await renamed.getByTestId("agent-delete").click();
    await expect(renamed.getByTestId("agent-delete")).toHaveText(/confirm/i);
    await renamed.getByTestId("agent-delete").click();
    await expect(
      page.getByTestId("agent-conversation-item").filter({ hasText: "Weather notes" }),
    ).toHaveCount(0);
    await expect(
      page.getByTestId("agent-conversation-item").filter({ hasText: "second topic" }),
    ).toBeVisible();
  });
});
