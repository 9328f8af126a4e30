import http from "node:http";
import type { AddressInfo } from "node:net";
import { type APIResponse, type BrowserContext, expect, type Page, test } from "@playwright/test";
import { DEMO_PASSWORD, signInAs, TopBar } from "./pages";

const port = Number(process.env.E2E_PORT ?? 3100);
const APP = `http://127.0.0.1:${port}`;

/** A hostile page on another port of the same host: same-site, so SameSite=Lax cookies still go with its POSTs. */
async function startEvilSite(formFor: (path: string) => string) {
  const server = http.createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://x").searchParams.get("target") ?? "/api/keys";
    res.writeHead(200, { "content-type": "text/html" });
    res.end(formFor(path));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const evilPort = (server.address() as AddressInfo).port;
  return { url: `http://127.0.0.1:${evilPort}`, close: () => new Promise((r) => server.close(r)) };
}

/** The classic CSRF form: text/plain, so the body reads as JSON, and no preflight is needed. */
const textPlainForm = (path: string, json: Record<string, string>) => {
  const [first, ...rest] = Object.entries(json);
  const body = `${JSON.stringify(Object.fromEntries(rest)).slice(0, -1)}${rest.length ? "," : ""}"${first![0]}":"`;
  return `<!doctype html><form id="f" method="POST" enctype="text/plain" action="${APP}${path}">
<input type="hidden" name='${body.slice(1)}' value='${first![1]}"}'></form>
<script>document.getElementById("f").submit()</script>`;
};

/** POST from a chosen local address (127.0.0.0/8 is all loopback), so the server's socket sees another client. */
function postFrom(
  localAddress: string,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const payload = JSON.stringify(body);
    const req = http.request(
      {
        host: "127.0.0.1",
        port,
        path,
        method: "POST",
        localAddress,
        headers: { origin: APP, "content-type": "application/json", ...headers },
      },
      (res) => {
        let text = "";
        res.on("data", (chunk) => {
          text += chunk;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}

const keyNames = async (page: Page) => JSON.stringify(await (await page.request.get("/api/keys")).json());

test.describe("CSRF", () => {
  test("a cross-site text/plain form post with an admin's cookie is refused and creates nothing", async ({
    page,
  }) => {
    await signInAs(page, "admin@acme.test");
    // This browser's requests carry their own Origin from here on (pages.ts stamps the app's on the context).
    await page.context().setExtraHTTPHeaders({});
    const evil = await startEvilSite((path) =>
      textPlainForm(path, { name: "csrf-key", email: "csrf@evil.example", message: "csrf turn" }),
    );
    try {
      for (const target of ["/api/keys", "/api/admin/invitations", "/api/agent/turns"]) {
        const answered = page.waitForResponse((r) => r.url() === `${APP}${target}`);
        await page.goto(`${evil.url}/?target=${encodeURIComponent(target)}`);
        const res = await answered;
        expect(res.request().headers().origin).toBe(evil.url);
        expect(res.status()).toBe(403);
        const body = await res.json();
        expect(body.error).toMatchObject({ code: "forbidden", requestId: expect.any(String) });
        expect(body.error.message).toContain("cross-site request refused");
      }
    } finally {
      await evil.close();
    }
    await page.goto("/");
    expect(await keyNames(page)).not.toContain("csrf-key");
    const invitations = await (await page.request.get("/api/admin/invitations")).text();
    expect(invitations).not.toContain("csrf@evil.example");
    const conversations = await (await page.request.get("/api/agent/conversations")).text();
    expect(conversations).not.toContain("csrf turn");
  });

  test("a forged Origin is refused with 403, and a same-origin body that is not JSON with 415", async ({
    page,
  }) => {
    await signInAs(page, "admin@acme.test");
    const forged = await page.request.post("/api/keys", {
      headers: { origin: "http://evil.example", "content-type": "text/plain" },
      data: JSON.stringify({ name: "forged-key" }),
    });
    expect(forged.status()).toBe(403);
    expect((await forged.json()).error.code).toBe("forbidden");
    const plain = await page.request.post("/api/keys", {
      headers: { origin: APP, "content-type": "text/plain" },
      data: JSON.stringify({ name: "plain-key" }),
    });
    expect(plain.status()).toBe(415);
    expect((await plain.json()).error).toMatchObject({ code: "unsupported_media_type" });
    expect(await keyNames(page)).not.toMatch(/forged-key|plain-key/);
  });

  test("a same-origin JSON request from the app's own page works", async ({ page }) => {
    await signInAs(page, "admin@acme.test");
    const created = await page.evaluate(async () => {
      const res = await fetch("/api/keys", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name: "same-origin-key" }),
      });
      return { status: res.status, body: await res.json() };
    });
    expect(created.status).toBe(201);
    expect((await page.request.delete(`/api/keys/${created.body.key.id}`)).status()).toBe(200);
  });

  test("login CSRF: a cross-site sign-in is refused and sets no session cookie", async ({ playwright }) => {
    const stranger = await playwright.request.newContext({ baseURL: APP });
    try {
      const credentials = { email: "member@acme.test", password: DEMO_PASSWORD };
      const viaLogin = await stranger.post("/api/login", {
        headers: { origin: "http://evil.example", "content-type": "text/plain" },
        data: JSON.stringify(credentials),
      });
      const csrf = (await (await stranger.get("/api/auth/csrf")).json()).csrfToken as string;
      const viaNextAuth = await stranger.post("/api/auth/callback/credentials", {
        headers: { origin: "http://evil.example" },
        form: { ...credentials, csrfToken: csrf },
        maxRedirects: 0,
      });
      for (const res of [viaLogin, viaNextAuth] as APIResponse[]) {
        expect(res.status()).toBe(403);
        expect(res.headers()["set-cookie"] ?? "").not.toContain("session-token");
      }
      expect((await stranger.get("/api/me")).status()).toBe(401);
    } finally {
      await stranger.dispose();
    }
  });
});

test.describe("sign-out", () => {
  test("ends the session on the server: the old cookie gets 401 on an API and the login page on a page", async ({
    page,
    browser,
  }) => {
    await signInAs(page, "member@globex.test");
    const stolen = await page.context().cookies();
    expect(stolen.some((c) => c.name.includes("session-token"))).toBe(true);
    await new TopBar(page).signOut();
    await expect(page).toHaveURL(/\/login/);

    const replay: BrowserContext = await browser.newContext({ baseURL: APP });
    try {
      await replay.addCookies(stolen);
      const me = await replay.request.get("/api/me");
      expect(me.status()).toBe(401);
      expect((await me.json()).error.code).toBe("unauthorized");
      const tab = await replay.newPage();
      await tab.goto("/dev/agent/turns");
      await expect(tab).toHaveURL(/\/login\?callbackUrl=%2Fdev%2Fagent%2Fturns/);
    } finally {
      await replay.close();
    }
  });

  test("next-auth's own sign-out endpoint ends the session on the server too", async ({ page, browser }) => {
    await signInAs(page, "member@acme.test");
    const stolen = await page.context().cookies();
    const csrf = (await (await page.request.get("/api/auth/csrf")).json()).csrfToken as string;
    const out = await page.request.post("/api/auth/signout", {
      headers: { origin: APP },
      form: { csrfToken: csrf, callbackUrl: "/login" },
      maxRedirects: 0,
    });
    expect(out.status()).toBeLessThan(400);
    const replay = await browser.newContext({ baseURL: APP });
    try {
      await replay.addCookies(stolen);
      expect((await replay.request.get("/api/me")).status()).toBe(401);
    } finally {
      await replay.close();
    }
  });
});

test.describe("security headers", () => {
  const expectCommonHeaders = (res: APIResponse, what: string) => {
    const h = res.headers();
    expect(h["x-content-type-options"], what).toBe("nosniff");
    expect(h["x-frame-options"], what).toBe("DENY");
    expect(h["referrer-policy"], what).toBe("strict-origin-when-cross-origin");
    expect(h["permissions-policy"], what).toContain("camera=()");
    const csp = res.headersArray().filter((x) => x.name.toLowerCase() === "content-security-policy");
    expect(csp, `${what}: exactly one CSP`).toHaveLength(1);
    expect(csp[0]!.value, what).toContain("frame-ancestors 'none'");
    expect(csp[0]!.value.match(/script-src[^;]*/)?.[0], what).not.toMatch(/unsafe-inline|unsafe-eval/);
    return csp[0]!.value;
  };

  test("are on a page, an API, /v1 and static files; pages get a fresh nonce each time", async ({
    request,
  }) => {
    const page1 = await request.get("/login");
    const page2 = await request.get("/login");
    const nonce = (csp: string) => csp.match(/'nonce-([^']+)'/)?.[1];
    const first = nonce(expectCommonHeaders(page1, "page"));
    expect(first).toBeTruthy();
    expect(nonce(expectCommonHeaders(page2, "page again"))).not.toBe(first);
    expect(await page1.text()).toContain(`nonce="${first}"`);

    expectCommonHeaders(await request.get("/api/health"), "API");
    expectCommonHeaders(await request.get("/api/me"), "API 401");
    expectCommonHeaders(await request.get("/v1/models"), "/v1");
    expectCommonHeaders(await request.get("/favicon.svg"), "public file");
    const script = (await page1.text()).match(/src="(\/_next\/static\/[^"]+\.js)"/)?.[1];
    expect(script).toBeTruthy();
    expectCommonHeaders(await request.get(script!), "Next static chunk");
    // Plain HTTP here: no HSTS (it would be sent over HTTPS only).
    expect(page1.headers()["strict-transport-security"]).toBeUndefined();
  });

  test("the login page and the drawer work under the CSP, with no violation reported", async ({ page }) => {
    const violations: string[] = [];
    page.on("console", (msg) => {
      if (/content security policy|refused to (execute|load|apply)/i.test(msg.text()))
        violations.push(msg.text());
    });
    await page.addInitScript(() => {
      document.addEventListener("securitypolicyviolation", (e) => {
        console.error(`Content Security Policy violation: ${e.violatedDirective} ${e.blockedURI}`);
      });
    });
    await signInAs(page, "member@acme.test");
    await page.getByTestId("agent-drawer-toggle").click();
    await expect(page.getByTestId("agent-drawer")).toBeVisible();
    await page.getByTestId("agent-input").fill("hello under a strict policy");
    await page.getByTestId("agent-input").press("Enter");
    await expect(page.getByTestId("agent-answer-footer").last()).toContainText("offline-demo");
    // The theme script is inline: it ran (with its nonce) if the toggle still flips the class.
    await page.reload();
    await expect(page.getByTestId("user-menu")).toBeVisible();
    expect(violations).toEqual([]);
  });
});

test.describe("the sign-in throttle", () => {
  test("a rotating X-Forwarded-For does not escape the per-address limit (TRUST_PROXY unset)", async () => {
    const spray = (i: number) =>
      postFrom(
        "127.0.0.3",
        "/api/login",
        { email: `spray${i}@nowhere.test`, password: "wrong-password" },
        { "x-forwarded-for": `198.51.100.${i + 1}` },
      );
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++) statuses.push((await spray(i)).status);
    expect(statuses.every((s) => s === 401)).toBe(true);
    const blocked = await spray(99);
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers["retry-after"])).toBeGreaterThan(0);
  });

  test("the owner signs in with the right password from another address while a stranger sprays", async ({
    request,
  }) => {
    const stranger = () =>
      postFrom("127.0.0.4", "/api/login", { email: "admin@globex.test", password: "guess" });
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) statuses.push((await stranger()).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429]);
    const owner = await request.post("/api/login", {
      data: { email: "admin@globex.test", password: DEMO_PASSWORD },
      headers: { origin: APP },
    });
    expect(owner.status()).toBe(200);
    expect(owner.headers()["set-cookie"]).toContain("session-token");
  });
});
