import { type APIRequestContext, expect, type Page } from "@playwright/test";

// Single sign-on against the real OpenID Connect provider scripts/e2e-server.ts starts as "Test SSO": its own
// development login page accepts any login, which becomes the ID token's sub and email; a login starting with
// "unverified" comes back with email_verified: false.
export const OIDC = `http://127.0.0.1:${process.env.E2E_OIDC_PORT ?? 3192}`;

/** From the Tollgate login page through the provider's login and consent pages, back to Tollgate. */
export async function signInWithSso(page: Page, email: string, path = "/login") {
  await page.goto(path);
  await page.getByRole("button", { name: "Sign in with Test SSO" }).click();
  await expect(page).toHaveURL((url) => url.origin === OIDC && url.pathname.startsWith("/interaction/"));
  await page.locator('input[name="login"]').fill(email);
  await page.locator('input[name="password"]').fill("any password: the test provider accepts everyone");
  await page.getByRole("button", { name: "Sign-in" }).click();
  await page.getByRole("button", { name: "Continue" }).click();
}

export async function expectSignedIn(page: Page) {
  await expect(page).toHaveURL((url) => url.origin !== OIDC && url.pathname === "/");
  await expect(page.getByTestId("user-menu")).toBeVisible();
}

/** Who the signed-in browser is, as /api/me says. */
export async function me(page: Page) {
  const res = await page.request.get("/api/me");
  expect(res.status()).toBe(200);
  return (await res.json()) as {
    user: { id: string; email: string; name: string; isSuperAdmin: boolean };
    tenant: { name: string } | null;
    role: string | null;
    tenants: { name: string; role: string }[];
  };
}

/** The super admin (signed in on `root`) makes the named tenant their active one; returns its id. */
export async function switchToTenant(root: APIRequestContext, name: string): Promise<string> {
  const list = await root.get("/api/admin/tenants");
  expect(list.status()).toBe(200);
  const { tenants } = (await list.json()) as { tenants: { id: string; name: string }[] };
  const id = tenants.find((t) => t.name === name)?.id;
  expect(id, `tenant ${name}`).toBeTruthy();
  expect((await root.post("/api/session/tenant", { data: { tenantId: id } })).ok()).toBe(true);
  return id!;
}

/** The super admin grants the named tenant these email domains for single sign-on auto-join. */
export async function grantSsoDomains(root: APIRequestContext, tenantName: string, ssoDomains: string[]) {
  await switchToTenant(root, tenantName);
  const saved = await root.put("/api/admin/sign-in-settings", { data: { ssoDomains } });
  expect(saved.status(), await saved.text()).toBe(200);
  return (await saved.json()) as { ssoDomains: string[] };
}

/**
 * Single sign-on as a browser does it, over plain HTTP in a request context (its cookie jar is the browser's):
 * next-auth's sign-in form, the provider's login and consent pages, back to Tollgate's callback. Returns where
 * Tollgate sends the browser at the end (an error names itself in the URL).
 */
export async function signInWithSsoOverHttp(c: APIRequestContext, base: string, login: string): Promise<URL> {
  const { csrfToken } = (await (await c.get(`${base}/api/auth/csrf`)).json()) as { csrfToken: string };
  let res = await c.post(`${base}/api/auth/signin/oidc`, {
    form: { csrfToken, callbackUrl: `${base}/` },
    maxRedirects: 0,
  });
  for (let hops = 0; hops < 15; hops++) {
    if (res.status() >= 300 && res.status() < 400) {
      const location = new URL(res.headers().location!, res.url());
      if (location.origin === new URL(base).origin && !location.pathname.startsWith("/api/auth/callback/"))
        return location;
      res = await c.get(location.href, { maxRedirects: 0 });
      continue;
    }
    const html = await res.text();
    expect(res.status(), html.slice(0, 300)).toBe(200);
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
    if (!action) throw new Error(`no form at ${res.url()}: ${html.slice(0, 300)}`);
    const prompt = /name="prompt" value="(\w+)"/.exec(html)?.[1] ?? "";
    res = await c.post(new URL(action, res.url()).href, {
      form: prompt === "login" ? { prompt, login, password: "anything" } : { prompt },
      maxRedirects: 0,
    });
  }
  throw new Error("single sign-on never came back to Tollgate");
}
