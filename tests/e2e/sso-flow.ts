import { expect, type Page } from "@playwright/test";

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
export async function switchToTenant(root: Page, name: string): Promise<string> {
  const list = await root.request.get("/api/admin/tenants");
  expect(list.status()).toBe(200);
  const { tenants } = (await list.json()) as { tenants: { id: string; name: string }[] };
  const id = tenants.find((t) => t.name === name)?.id;
  expect(id, `tenant ${name}`).toBeTruthy();
  expect((await root.request.post("/api/session/tenant", { data: { tenantId: id } })).ok()).toBe(true);
  return id!;
}

/** The super admin grants the named tenant these email domains for single sign-on auto-join. */
export async function grantSsoDomains(root: Page, tenantName: string, ssoDomains: string[]) {
  await switchToTenant(root, tenantName);
  const saved = await root.request.put("/api/admin/sign-in-settings", { data: { ssoDomains } });
  expect(saved.status(), await saved.text()).toBe(200);
  return (await saved.json()) as { ssoDomains: string[] };
}
