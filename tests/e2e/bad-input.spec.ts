import { expect, type Page, test } from "@playwright/test";
import { signInAs } from "./pages";

// Hostile input against the production build (`next start`): each answer is a 4xx in the documented error
// shape, and an export refuses a bad query before it sends its 200 headers.
type ErrorBody = {
  error: { code: string; message: string; fields?: Record<string, string[]>; requestId: string };
};

async function expectError(page: Page, path: string, status: number, code: string, field: string) {
  const res = await page.request.get(path);
  expect(res.status(), path).toBe(status);
  expect(res.headers()["content-type"]).toContain("application/json");
  const body = (await res.json()) as ErrorBody;
  expect(body.error.code).toBe(code);
  expect(body.error.requestId).toBeTruthy();
  expect(Object.keys(body.error.fields ?? {})).toContain(field);
}

test.describe("bad input on the built app", () => {
  test("a CSV export with a bad filter is a JSON error, not a 200 that breaks off", async ({ page }) => {
    await signInAs(page, "admin@acme.test");
    await expectError(page, "/api/schema/agent-turns/export?f.nope=1", 422, "validation_failed", "f.nope");
    await expectError(
      page,
      "/api/schema/agent-audit/export?f.createdAt.from=2026-02-31",
      422,
      "validation_failed",
      "f.createdAt.from",
    );
    const good = await page.request.get("/api/schema/agent-turns/export?f.startedAt.from=2026-01-01");
    expect(good.status()).toBe(200);
    expect(good.headers()["content-type"]).toContain("text/csv");
    expect((await good.text()).split("\n")[0]).toContain("Started");
  });

  test("a date that rolls over and a crafted cursor are refused, naming the filter or the cursor", async ({
    page,
  }) => {
    await signInAs(page, "admin@acme.test");
    await expectError(
      page,
      "/api/schema/agent-turns/rows?f.startedAt.from=2026-02-31",
      422,
      "validation_failed",
      "f.startedAt.from",
    );
    await expectError(
      page,
      "/api/schema/agent-turns/metrics?f.startedAt.from=2026-03-02&f.startedAt.to=2026-03-01",
      422,
      "validation_failed",
      "f.startedAt.from",
    );
    const crafted = Buffer.from(JSON.stringify(["yesterday", "not-an-id"])).toString("base64url");
    await expectError(page, `/api/schema/agent-turns/rows?cursor=${crafted}`, 400, "bad_request", "cursor");
    await expectError(page, "/api/schema/agent-turns/rows?cursor=bm9wZQ", 400, "bad_request", "cursor");
  });

  test("an invitation link never takes its host from a forged X-Forwarded-Host", async ({
    page,
    baseURL,
  }) => {
    await signInAs(page, "admin@acme.test");
    const invite = async (email: string, headers: Record<string, string> = {}) => {
      const res = await page.request.post("/api/admin/invitations", {
        data: { email },
        headers: { origin: baseURL!, ...headers },
      });
      expect(res.status()).toBe(201);
      return ((await res.json()) as { link: string }).link;
    };
    const stamp = Date.now();
    const forged = await invite(`forged-${stamp}@acme.test`, { "x-forwarded-host": "evil.example" });
    expect(forged).not.toContain("evil.example");
    // Without the header, Next copies Host into X-Forwarded-Host: that is not "forwarded", and Host is used.
    const plain = await invite(`plain-${stamp}@acme.test`);
    expect(new URL(plain).host).toBe(new URL(baseURL!).host);
  });
});
