import { expect, test } from "@playwright/test";
import { LoginPage } from "./pages";

test.describe("sign-in never sends the browser to another site", () => {
  test("callbackUrl=/%09/evil.example ends on the app's own origin", async ({ page, baseURL }) => {
    const offsite: string[] = [];
    page.on("request", (request) => {
      if (new URL(request.url()).hostname.endsWith("evil.example")) offsite.push(request.url());
    });
    await page.route(
      (url) => url.hostname.endsWith("evil.example"),
      (route) => route.abort(),
    );

    const login = new LoginPage(page);
    await login.goto("/login?callbackUrl=/%09/evil.example");
    await login.signIn("member@acme.test");
    await expect(page.getByTestId("user-menu")).toBeVisible();
    const landed = new URL(page.url());
    expect(landed.origin).toBe(new URL(baseURL!).origin);
    expect(landed.pathname).toBe("/");
    expect(offsite).toEqual([]);
  });

  test("the sign-in route answers / for every off-site callback", async ({ page }) => {
    const login = new LoginPage(page);
    await login.goto();
    for (const callbackUrl of [
      "/\t/evil.example",
      "//evil.example",
      "/\\evil.example",
      "/%2F%2Fevil.example",
    ]) {
      const response = await page.request.post("/api/login", {
        data: { email: "member@globex.test", password: "tollgate-demo", callbackUrl },
      });
      expect(response.status(), callbackUrl).toBe(200);
      expect(await response.json()).toEqual({ ok: true, redirectTo: "/" });
    }
  });

  test("the login page names the demo password while the demo accounts exist", async ({ page }) => {
    await new LoginPage(page).goto();
    await expect(page.getByTestId("demo-hint")).toContainText("tollgate-demo");
  });
});
