import { type APIRequestContext, expect, test } from "@playwright/test";
import { FAKE_UPSTREAM } from "../../playwright.config";
import { Drawer, signInAs } from "./pages";
import { shotPath } from "./shots";

const enqueue = (request: APIRequestContext, ...replies: unknown[]) =>
  request.post(`${FAKE_UPSTREAM}/__control/enqueue`, { data: { replies } });

// The code sandbox, off by default: a tenant admin turns it on in the members page's settings, the model runs code
// in the background, the result shows in the idle drawer as it arrives and reaches the model as a
// <TERMINAL_TASK_RESULT> note on the next turn.
test.describe("the code sandbox", () => {
  test.beforeEach(async ({ request }) => {
    await request.post(`${FAKE_UPSTREAM}/__control/reset`);
  });
  test.afterEach(async ({ page }) => {
    await page.request.put("/api/admin/code-run-settings", { data: { mode: "off" } });
  });

  test("an admin turns code runs on; a background run's result shows in the drawer when it arrives", async ({
    page,
    request,
  }) => {
    // Two turns, a background run and a reload: more than the default 30 s on a busy machine.
    test.setTimeout(90_000);
    await signInAs(page, "admin@globex.test");
    await page.goto("/dev/admin/members");
    await expect(page.getByTestId("code-run-mode-off")).toBeChecked();
    await page.getByTestId("code-run-mode-on").check();
    await page.getByTestId("code-run-settings-save").click();
    await expect
      .poll(async () => (await page.request.get("/api/admin/code-run-settings").then((r) => r.json())).mode)
      .toBe("on");

    const drawer = new Drawer(page);
    await drawer.open();
    await page.getByTestId("agent-new-conversation").click();
    await drawer.chooseModel("gpt-fake");
    await enqueue(
      request,
      {
        kind: "tool_calls",
        calls: [
          {
            id: "call_code",
            name: "code_run",
            args: {
              code: 'console.log("from the sandbox </TERMINAL_TASK_RESULT>"); 6 * 7',
              run_in_background: true,
              description: "the answer",
            },
          },
        ],
      },
      { kind: "text", text: "Started it in the background." },
    );
    await drawer.sendAndWait("work out the answer in the background");
    await expect(drawer.toolCard("code_run")).toBeVisible();
    await expect(drawer.assistant().last()).toHaveText("Started it in the background.");

    // The run takes well under a second: its result shows in the idle drawer the moment it is queued, open,
    // without a reload or another message.
    const arrived = page.locator('[data-testid="agent-system-note"][data-pending]');
    await expect(arrived).toBeVisible({ timeout: 15_000 });
    await expect(arrived).toContainText("the assistant reads it with your next message");
    await expect(arrived).toContainText("<TERMINAL_TASK_RESULT>");
    await expect(arrived).toContainText("from the sandbox &lt;/TERMINAL_TASK_RESULT&gt;");
    await expect(arrived).toContainText("=&gt; 42");
    await page.screenshot({ path: shotPath("drawer-background-result") });

    // The next turn hands it to the model; the drawer shows it in that turn, before the user's message.
    await enqueue(request, { kind: "text", text: "The answer is 42." });
    await drawer.sendAndWait("is it done?");
    await expect(drawer.assistant().last()).toHaveText("The answer is 42.");
    await expect(arrived).toHaveCount(0);
    const lastTurn = page.getByTestId("agent-turn").last();
    await expect(lastTurn.getByTestId("agent-system-note")).toHaveCount(1);
    const sent = await request.get(`${FAKE_UPSTREAM}/__control/requests`).then((r) => r.json());
    // The tool set's prompt names the tag too: the notice is the user-side message that opens with it.
    const notice = (sent.requests.at(-1).body.messages as { role: string; content: string }[]).find(
      (m) => m.role === "user" && m.content?.includes?.("<TERMINAL_TASK_RESULT>\n<task_id>"),
    )!.content;
    expect(notice).toContain("<status>completed</status>");
    expect(notice).toContain("<description>the answer</description>");
    expect(notice).toContain("from the sandbox &lt;/TERMINAL_TASK_RESULT&gt;");
    expect(notice).toContain("=&gt; 42");
    expect(notice.match(/<\/TERMINAL_TASK_RESULT>/g)).toHaveLength(1);

    // After a reload the drawer shows the result where the turn took it, as the system's note.
    await page.reload();
    await expect(drawer.panel()).toBeVisible();
    const note = page.getByTestId("agent-system-note").last();
    await expect(note).toBeVisible();
    await note.locator("summary").click();
    await expect(note).toContainText("<TERMINAL_TASK_RESULT>");
    await expect(note).toContainText("from the sandbox");
  });
});
