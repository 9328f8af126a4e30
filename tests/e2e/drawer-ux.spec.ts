import { type APIRequestContext, expect, test } from "@playwright/test";
import { FAKE_UPSTREAM } from "../../playwright.config";
import { Drawer, signInAs } from "./pages";

test.use({ viewport: { width: 1280, height: 800 } });

const enqueue = (request: APIRequestContext, ...replies: unknown[]) =>
  request.post(`${FAKE_UPSTREAM}/__control/enqueue`, { data: { replies } });

const LIMIT_MESSAGE = "the message is too long (32,000 characters at most)";

test.describe("the drawer's message tools", () => {
  test.beforeEach(async ({ request }) => {
    await request.post(`${FAKE_UPSTREAM}/__control/reset`);
  });

  test("a too-long message shows the limit before sending, and the server's own reason when forced past it", async ({
    page,
  }) => {
    await signInAs(page, "member@acme.test");
    const drawer = new Drawer(page);
    await drawer.open();
    const counter = page.getByTestId("agent-char-count");

    await drawer.input().fill("x".repeat(1000));
    await expect(counter).toHaveCount(0);
    await drawer.input().fill("x".repeat(26_000));
    await expect(counter).toHaveText("26,000 / 32,000 characters");
    await expect(drawer.sendButton()).toBeEnabled();
    await drawer.input().fill("x".repeat(32_001));
    await expect(counter).toContainText("at most 32,000 characters");
    await expect(counter).toContainText("Remove 1");
    await expect(drawer.sendButton()).toBeDisabled();
    await drawer.input().press("Enter");
    await expect(drawer.user()).toHaveCount(0);

    // The server says the same, by name, to a client that skips the check.
    const direct = await page.request.post("/api/agent/turns", { data: { message: "y".repeat(32_001) } });
    expect(direct.status()).toBe(422);
    expect((await direct.json()).error.fields.message).toEqual([LIMIT_MESSAGE]);

    // Forced past the composer, the drawer shows the server's reason and offers no pointless Retry.
    await page.route("**/api/agent/turns", (route) =>
      route.continue({ postData: JSON.stringify({ message: "z".repeat(32_001) }) }),
    );
    await drawer.send("a short message, made long on the way");
    const error = page.getByTestId("agent-error");
    await expect(error).toContainText(LIMIT_MESSAGE);
    await expect(error).toHaveAttribute("data-kind", "refused");
    await expect(page.getByTestId("agent-retry")).toHaveCount(0);
  });

  test("copy puts a message and an answer on the clipboard", async ({ page, context }) => {
    await context.grantPermissions(["clipboard-read", "clipboard-write"]);
    await signInAs(page, "member@acme.test");
    const drawer = new Drawer(page);
    await drawer.open();
    await page.getByTestId("agent-new-conversation").click();
    const conversationId = await drawer.send("hello there, who are you?");
    await expect(drawer.footers().last()).toContainText("offline-demo");

    const turn = page.getByTestId("agent-turn").last();
    const [copyMine, copyAnswer] = [
      turn.getByTestId("agent-copy").first(),
      turn.getByTestId("agent-copy").last(),
    ];
    await copyMine.click();
    await expect(copyMine).toHaveText("Copied");
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe("hello there, who are you?");
    await copyAnswer.click();
    await expect(copyAnswer).toHaveText("Copied");
    // The answer's own words (its markdown source), exactly as the conversation stored them.
    const stored = await (await page.request.get(`/api/agent/conversations/${conversationId}`)).json();
    const answer: string = stored.messages.at(-1).content;
    expect(answer).toContain("offline demo model");
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(answer);
  });

  test("regenerate and edit replace the last answer with new ones, and the conversation keeps them after a reload", async ({
    page,
    request,
  }) => {
    await signInAs(page, "admin@globex.test");
    const drawer = new Drawer(page);
    await drawer.open();
    await page.getByTestId("agent-new-conversation").click();
    await drawer.chooseModel("gpt-fake");
    await enqueue(
      request,
      { kind: "text", text: "First answer." },
      { kind: "text", text: "Regenerated answer." },
      { kind: "text", text: "Answer to the edited question." },
    );
    const conversationId = await drawer.send("what is the capital of France?");
    await expect(drawer.assistant().last()).toHaveText("First answer.");
    await expect(drawer.footers().last()).toBeVisible();

    // Only the last answer can be regenerated and only the last message edited.
    await expect(page.getByTestId("agent-regenerate")).toHaveCount(1);
    await page.getByTestId("agent-regenerate").click();
    await expect(drawer.assistant().last()).toHaveText("Regenerated answer.");
    await expect(drawer.assistant()).toHaveCount(1);
    await expect(drawer.user()).toHaveText(["what is the capital of France?"]);
    await expect(drawer.footers().last()).toBeVisible();

    await page.getByTestId("agent-edit").click();
    await page.getByTestId("agent-edit-input").fill("what is the capital of Italy?");
    await page.getByTestId("agent-edit-send").click();
    await expect(drawer.assistant().last()).toHaveText("Answer to the edited question.");
    await expect(drawer.user()).toHaveText(["what is the capital of Italy?"]);
    await expect(drawer.footers().last()).toBeVisible();

    // Each was a governed turn of its own: the conversation shows the current version, the ledger all three.
    const stored = await (await page.request.get(`/api/agent/conversations/${conversationId}`)).json();
    expect(stored.messages.map((m: { content: string }) => m.content)).toEqual([
      "what is the capital of Italy?",
      "Answer to the edited question.",
    ]);
    await page.reload();
    // The drawer reopens by itself after a reload (a click on the toggle as it does would close it again).
    await expect(drawer.panel()).toBeVisible();
    await expect(drawer.user()).toHaveText(["what is the capital of Italy?"]);
    await expect(drawer.assistant()).toHaveText(["Answer to the edited question."]);
  });

  test("history is grouped by date and search finds a conversation by its words", async ({ page }) => {
    await signInAs(page, "member@globex.test");
    const drawer = new Drawer(page);
    await drawer.open();
    const word = `zanzibar${Date.now().toString(36)}`;
    await page.getByTestId("agent-new-conversation").click();
    await drawer.send(`## Notes on **${word}** trade routes`);
    await expect(drawer.footers().last()).toBeVisible();
    await page.getByTestId("agent-new-conversation").click();
    await drawer.send("something else entirely");
    await expect(drawer.footers().last()).toBeVisible();

    await page.getByTestId("agent-conversations-toggle").click();
    await expect(page.getByTestId("agent-history-group").first()).toHaveText("Today");
    const items = page.getByTestId("agent-conversation-item");
    await expect(items.filter({ hasText: "something else entirely" })).toHaveCount(1);

    await page.getByTestId("agent-history-search").fill(word.toUpperCase());
    await expect(items).toHaveCount(1);
    // The title is plain text: no heading marks, no asterisks.
    await expect(items.first().getByTestId("agent-conversation-open")).toContainText(
      `Notes on ${word} trade routes`,
    );
    await page.getByTestId("agent-history-search").fill(`${word}-nowhere`);
    await expect(page.getByTestId("agent-history-empty")).toContainText("No conversation matches");
    await page.getByTestId("agent-history-search").fill("");
    await expect(items.filter({ hasText: "something else entirely" })).toHaveCount(1);
  });

  test("a wide markdown table scrolls inside its bubble, which stays inside the drawer", async ({
    page,
    request,
  }) => {
    await signInAs(page, "admin@globex.test");
    const drawer = new Drawer(page);
    await drawer.open();
    await page.getByTestId("agent-new-conversation").click();
    await drawer.chooseModel("gpt-fake");
    const header = [
      "Model",
      "Provider",
      "Input tokens",
      "Output tokens",
      "Cached tokens",
      "Cost (USD)",
      "Latency",
      "Status",
    ];
    const row = [
      "gpt-4o-mini-2024-07-18",
      "openai-compatible",
      "123,456",
      "78,901",
      "11,000",
      "$15.75",
      "1.8 s",
      "success",
    ];
    const table = [
      `| ${header.join(" | ")} |`,
      `| ${header.map(() => "---").join(" | ")} |`,
      `| ${row.join(" | ")} |`,
    ].join("\n");
    await enqueue(request, { kind: "text", text: `Spend by model:\n\n${table}\n\nThat is all.` });
    await drawer.send("show spend by model as a table");
    await expect(drawer.assistant().last()).toContainText("That is all.");
    const scroller = drawer.assistant().last().getByTestId("agent-table-scroll");
    await expect(scroller.locator("th")).toHaveCount(8);
    const sizes = await scroller.evaluate((el) => ({ scroll: el.scrollWidth, client: el.clientWidth }));
    expect(sizes.scroll).toBeGreaterThan(sizes.client);
    const bubble = await drawer.assistant().last().boundingBox();
    const panel = await drawer.panel().boundingBox();
    expect(bubble!.x + bubble!.width).toBeLessThanOrEqual(panel!.x + panel!.width);
    // The bubble itself does not scroll or overflow: only the table does.
    const overflow = await drawer
      .assistant()
      .last()
      .evaluate((el) => el.scrollWidth - el.clientWidth);
    expect(overflow).toBe(0);
    await scroller.evaluate((el) => el.scrollTo({ left: el.scrollWidth }));
    await expect(scroller.locator("th").last()).toBeInViewport();
    await expect(page.getByTestId("agent-table-pending")).toHaveCount(0);
  });

  test("badges, markers and actions read in Chinese", async ({ page, context, baseURL }) => {
    await context.addCookies([{ name: "tollgate-locale", value: "zh", url: baseURL! }]);
    await signInAs(page, "member@acme.test");
    const drawer = new Drawer(page);
    await drawer.open();
    await page.getByTestId("agent-new-conversation").click();
    await drawer.send("What are my open orders?");
    const card = page.locator('[data-testid="agent-tool-card"][data-tool-name="query_orders"]').last();
    await expect(card).toContainText("完成");
    await expect(drawer.footers().last()).toContainText("令牌");
    const turn = page.getByTestId("agent-turn").last();
    await expect(turn.getByTestId("agent-copy").first()).toHaveText("复制");
    await expect(turn.getByTestId("agent-edit")).toHaveText("编辑");
    await expect(turn.getByTestId("agent-regenerate")).toHaveText("重新生成");

    await drawer.send("Tell me everything you can about this workspace, in as many words as you like.");
    await expect(drawer.assistant().last()).toContainText("offline");
    await drawer.sendButton().click();
    const stopped = page.getByTestId("agent-stopped");
    await expect(stopped).toBeVisible();
    await expect(stopped).toHaveText(/已停止/);
    await expect(drawer.footers().last()).toContainText("已停止");

    await page.getByTestId("agent-conversations-toggle").click();
    await expect(page.getByTestId("agent-history-group").first()).toHaveText("今天");
    await expect(page.getByTestId("agent-history-search")).toHaveAttribute("placeholder", "搜索标题和消息…");
    // No badge or action of the drawer is left in English.
    const badges = page
      .getByTestId("agent-drawer")
      .locator(
        '[data-testid="agent-tool-card"] span.rounded, [data-testid="agent-answer-footer"], [data-testid="agent-message-actions"], [data-testid="agent-stopped"]',
      );
    for (const text of await badges.allInnerTexts())
      expect(text).not.toMatch(
        /\b(success|failed|stopped|running|done|error|cancelled|Copy|Copied|Edit|Regenerate)\b/,
      );
  });
});
