import { expect, test } from "@playwright/test";
import { signInAs } from "./pages";

// The tenant's web_fetch setting on the members page, beside single sign-on: a tenant admin switches it off or
// to allow-listed domains; a bad domain is named under the field; members cannot read or change it.
test.describe("the tenant's web_fetch setting", () => {
  test.afterEach(async ({ page }) => {
    await page.request.put("/api/admin/web-fetch-settings", { data: { mode: "any", domains: [] } });
  });

  test("an admin limits web_fetch to listed domains, then switches it off; a member gets 403", async ({
    page,
    browser,
    baseURL,
  }) => {
    await signInAs(page, "admin@globex.test");
    await page.goto("/dev/admin/members");
    const form = page.getByTestId("web-fetch-settings-form");
    await expect(page.getByTestId("web-fetch-mode-any")).toBeChecked();

    await page.getByTestId("web-fetch-mode-allowlist").check();
    await form.getByTestId("field-webFetchDomains").fill("docs.example.com\nnot a domain");
    await page.getByTestId("web-fetch-settings-save").click();
    await expect(form.getByTestId("field-error-webFetchDomains")).toContainText(
      "a domain such as example.com",
    );

    await form.getByTestId("field-webFetchDomains").fill("Docs.Example.com, example.org");
    await page.getByTestId("web-fetch-settings-save").click();
    await expect(form.getByTestId("field-webFetchDomains")).toHaveValue("docs.example.com\nexample.org");
    const saved = await page.request.get("/api/admin/web-fetch-settings");
    expect(await saved.json()).toEqual({ mode: "allowlist", domains: ["docs.example.com", "example.org"] });

    await page.getByTestId("web-fetch-mode-off").check();
    await page.getByTestId("web-fetch-settings-save").click();
    await expect
      .poll(async () => (await page.request.get("/api/admin/web-fetch-settings").then((r) => r.json())).mode)
      .toBe("off");
    await page.reload();
    await expect(page.getByTestId("web-fetch-mode-off")).toBeChecked();

    const member = await browser.newContext({ baseURL });
    const memberPage = await member.newPage();
    await signInAs(memberPage, "member@globex.test");
    expect((await memberPage.request.get("/api/admin/web-fetch-settings")).status()).toBe(403);
    expect(
      (await memberPage.request.put("/api/admin/web-fetch-settings", { data: { mode: "any" } })).status(),
    ).toBe(403);
    await member.close();
  });
});
