import { readFileSync } from "node:fs";
import { type APIRequestContext, expect, test } from "@playwright/test";
import { FAKE_UPSTREAM } from "../../playwright.config";
import { Drawer, signInAs } from "./pages";

// load_image in the drawer against the fake OpenAI upstream: the image the tool showed the model appears under its
// card (a thumbnail of the conversation's own file), live and after a reload, and went upstream as an image part.

const enqueue = (request: APIRequestContext, ...replies: unknown[]) =>
  request.post(`${FAKE_UPSTREAM}/__control/enqueue`, { data: { replies } });

test.describe("load_image in the drawer", () => {
  test.beforeEach(async ({ request }) => {
    await request.post(`${FAKE_UPSTREAM}/__control/reset`);
  });

  test("the image a tool loaded shows under its card, live and after a reload", async ({ page, request }) => {
    await signInAs(page, "member@acme.test");
    const drawer = new Drawer(page);
    await drawer.open();
    await page.getByTestId("agent-new-conversation").click();
    await drawer.chooseModel("gpt-fake");

    const picture = readFileSync("docs/screenshots/drawer-empty.png");
    const uploaded = page.waitForResponse(
      (r) => r.url().endsWith("/api/agent/files") && r.request().method() === "POST",
    );
    await page.getByTestId("agent-file-input").setInputFiles({
      name: "drawer.png",
      mimeType: "image/png",
      buffer: picture,
    });
    const fileId = ((await (await uploaded).json()) as { id: string }).id;
    await expect(drawer.files().filter({ hasText: "drawer.png" })).toHaveAttribute("data-status", "done");
    await enqueue(request, { kind: "text", text: "A drawer." });
    await drawer.send("Here is a picture.");
    await expect(drawer.assistant().last()).toContainText("A drawer.");

    await enqueue(
      request,
      { kind: "tool_calls", calls: [{ id: "call_load", name: "load_image", args: { file_id: fileId } }] },
      { kind: "text", text: "It is the empty drawer." },
    );
    await drawer.send("Look at it again.");
    await expect(drawer.assistant().last()).toContainText("It is the empty drawer.");
    const card = page.locator('[data-testid="agent-tool-card"][data-tool-name="load_image"]').last();
    const shown = card.getByTestId("agent-tool-message");
    await expect(shown).toContainText("Shown to the assistant");
    const thumbnail = shown.getByRole("img", { name: "Image: drawer.png" });
    await expect(thumbnail).toHaveAttribute("src", `/api/agent/files/${fileId}`);
    await expect
      .poll(() => thumbnail.evaluate((img: HTMLImageElement) => img.naturalWidth))
      .toBeGreaterThan(0);
    await card.screenshot({ path: test.info().outputPath("load-image-card.png") });

    // Upstream, the image went as an image_url part after the tool's result.
    const { requests } = (await (await request.get(`${FAKE_UPSTREAM}/__control/requests`)).json()) as {
      requests: { body: { messages: { role: string; content: unknown }[] } }[];
    };
    const last = requests.at(-1)!.body.messages.at(-1)!;
    expect(last.role).toBe("user");
    expect(JSON.stringify(last.content)).toContain(
      `data:image/png;base64,${picture.toString("base64").slice(0, 40)}`,
    );

    await page.reload();
    await expect(drawer.panel()).toBeVisible();
    const again = page.locator('[data-testid="agent-tool-card"][data-tool-name="load_image"]').last();
    await expect(again.getByRole("img", { name: "Image: drawer.png" })).toBeVisible();
    await expect(drawer.user().last()).toHaveText("Look at it again.");
  });
});
