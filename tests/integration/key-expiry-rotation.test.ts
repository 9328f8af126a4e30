import Anthropic from "@anthropic-ai/sdk";
import { and, eq } from "drizzle-orm";
import OpenAI from "openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { adminChange, apiKey, appUser, guardrailPolicy, usageLimit } from "@/db/schema";
import { clearApiKeyCache } from "@/lib/auth/api-keys";
import { parseGatewayConfig } from "@/lib/gateway/config";
import { Gateway } from "@/lib/gateway/gateway";
import type { FakeProvider } from "../fakes/http";
import { startFakeOpenAI } from "../fakes/openai";
import { useSeededAppDatabase } from "../helpers/app-db";
import { testDbKinds } from "../helpers/db";
import { startLeanApi } from "../helpers/lean-api";
import { session } from "../helpers/session";

vi.mock("@/lib/auth/session", () => import("../helpers/session"));

const keysRoute = await import("@/app/api/keys/route");
const keyRoute = await import("@/app/api/keys/[id]/route");
const rotateRoute = await import("@/app/api/keys/[id]/rotate/route");
const mcpRoute = await import("@/app/mcp/route");

type Handler<P> = (req: Request, segment: { params: Promise<P> }) => Promise<Response>;
async function call<P = Record<string, never>>(
  handler: Handler<P>,
  method: string,
  params: P,
  body?: unknown,
) {
  const res = await handler(
    new Request("http://app.test/api/keys", {
      method,
      headers: { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
    { params: Promise.resolve(params) },
  );
  return { status: res.status, body: await res.json() };
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe.each(testDbKinds)("keys that expire and rotate, on %s", (kind) => {
  let app: Awaited<ReturnType<typeof useSeededAppDatabase>>;
  let upstream: FakeProvider;
  let root: string;
  let closeApi: () => Promise<void>;
  let acme: string;

  const as = async (email: string, slug: string) => {
    const userId = await app.userId(email);
    const [u] = await app.db.select().from(appUser).where(eq(appUser.id, userId));
    session.claims = { userId, tenantId: await app.tenantId(slug), epoch: u!.sessionEpoch };
  };
  const create = async (body: Record<string, unknown>) => {
    const res = await call(keysRoute.POST, "POST", {}, body);
    expect(res.status).toBe(201);
    return res.body as { secret: string; key: { id: string; name: string; expiresAt: string | null } };
  };
  const rotate = (id: string, body: unknown = {}) => call(rotateRoute.POST, "POST", { id }, body);
  const oa = (secret: string) => new OpenAI({ apiKey: secret, baseURL: `${root}/v1`, maxRetries: 0 });
  const an = (secret: string) => new Anthropic({ apiKey: secret, baseURL: root, maxRetries: 0 });
  const chat = (secret: string) =>
    oa(secret).chat.completions.create({ model: "team-gpt", messages: [{ role: "user", content: "Hi" }] });
  /** What the OpenAI SDK throws for a call with `secret` (a call that answers is a failure). */
  const openaiRefusal = async (secret: string) => {
    const error = await chat(secret).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(OpenAI.AuthenticationError);
    return error as InstanceType<typeof OpenAI.AuthenticationError>;
  };
  const anthropicRefusal = async (secret: string) => {
    const error = await an(secret)
      .messages.create({ model: "team-gpt", max_tokens: 16, messages: [{ role: "user", content: "Hi" }] })
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(error).toBeInstanceOf(Anthropic.AuthenticationError);
    return error as InstanceType<typeof Anthropic.AuthenticationError>;
  };
  const expireInDb = async (id: string, at: Date) => {
    await app.db.update(apiKey).set({ expiresAt: at }).where(eq(apiKey.id, id));
    clearApiKeyCache();
  };

  beforeAll(async () => {
    app = await useSeededAppDatabase(kind);
    upstream = await startFakeOpenAI();
    const gateway = new Gateway(
      parseGatewayConfig(
        {
          providers: { up: { type: "openai", baseUrl: upstream.url } },
          models: { "team-gpt": { candidates: [{ provider: "up", model: "gpt-4o-mini" }] } },
          retry: { maxRetries: 0 },
        },
        "test",
        {},
      ),
    );
    const api = await startLeanApi(app.db, gateway);
    root = api.root;
    closeApi = api.close;
    acme = await app.tenantId("acme");
  });
  afterAll(async () => {
    await closeApi();
    await upstream.close();
    await app.close();
  });
  beforeEach(async () => {
    upstream.reset();
    await as("admin@acme.test", "acme");
  });

  it("creates a key with an expiry in days or at an instant, and refuses expiries that are wrong, naming the field", async () => {
    const before = Date.now();
    const inDays = await create({ name: "ninety days", expiresInDays: 90 });
    const at = Date.parse(inDays.key.expiresAt!);
    expect(at).toBeGreaterThanOrEqual(before + 90 * DAY);
    expect(at).toBeLessThanOrEqual(Date.now() + 90 * DAY);
    const instant = new Date(Date.now() + 7 * DAY).toISOString();
    expect(Date.parse((await create({ name: "a week", expiresAt: instant })).key.expiresAt!)).toBe(
      Date.parse(instant),
    );
    expect((await create({ name: "forever" })).key.expiresAt).toBeNull();

    const past = new Date(Date.now() - HOUR).toISOString();
    const refusals: [Record<string, unknown>, string][] = [
      [{ expiresAt: past }, "expiresAt"],
      [{ expiresAt: new Date(Date.now() + 6 * 365 * DAY).toISOString() }, "expiresAt"],
      [{ expiresAt: "next tuesday" }, "expiresAt"],
      [{ expiresInDays: 0 }, "expiresInDays"],
      [{ expiresInDays: 1.5 }, "expiresInDays"],
      [{ expiresInDays: 2000 }, "expiresInDays"],
      [{ expiresInDays: 30, expiresAt: instant }, "expiresAt"],
    ];
    for (const [input, field] of refusals) {
      const res = await call(keysRoute.POST, "POST", {}, { name: "bad expiry", ...input });
      expect({ input, status: res.status, fields: Object.keys(res.body.error.fields ?? {}) }).toEqual({
        input,
        status: 422,
        fields: [field],
      });
    }

    // Changing it: a past instant is refused the same way; null means never; each change is in the admin log.
    const { id } = inDays.key;
    const refused = await call(keyRoute.PATCH, "PATCH", { id }, { expiresAt: past });
    expect(refused.status).toBe(422);
    expect(Object.keys(refused.body.error.fields)).toEqual(["expiresAt"]);
    expect((await call(keyRoute.PATCH, "PATCH", { id }, {})).status).toBe(422);
    const never = await call(keyRoute.PATCH, "PATCH", { id }, { expiresAt: null });
    expect(never).toMatchObject({ status: 200, body: { key: { id, expiresAt: null } } });
    const changes = await app.db
      .select()
      .from(adminChange)
      .where(and(eq(adminChange.objectId, id), eq(adminChange.action, "api_key.expiry_changed")));
    expect(changes).toHaveLength(1);
    expect(changes[0]!.after).toMatchObject({ expiresAt: null });
  });

  it("answers a key past its expiry with 401 key_expired in OpenAI's and Anthropic's shapes, and on /mcp", async () => {
    const { secret, key } = await create({ name: "short-lived" });
    upstream.enqueue({ kind: "text", text: "still here", usage: { input: 3, output: 2 } });
    expect((await chat(secret)).choices[0]!.message.content).toBe("still here");

    const expiredAt = new Date(Date.now() - 60_000);
    await expireInDb(key.id, expiredAt);
    const openai = await openaiRefusal(secret);
    expect(openai.status).toBe(401);
    expect(openai.code).toBe("key_expired");
    expect(openai.type).toBe("invalid_request_error");
    expect(openai.message).toContain(`expired at ${expiredAt.toISOString()}`);

    const anthropic = await anthropicRefusal(secret);
    expect(anthropic.status).toBe(401);
    expect(anthropic.error).toMatchObject({
      type: "error",
      error: { type: "authentication_error", message: expect.stringContaining(expiredAt.toISOString()) },
    });

    const mcp = await mcpRoute.POST(
      new Request("http://app.test/mcp", {
        method: "POST",
        headers: {
          authorization: `Bearer ${secret}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      }),
    );
    expect(mcp.status).toBe(401);
    expect(mcp.headers.get("www-authenticate")).toContain("key_expired");
    expect(await mcp.json()).toMatchObject({
      error: {
        message: expect.stringContaining(`expired at ${expiredAt.toISOString()}`),
        data: { code: "key_expired", expiredAt: expiredAt.toISOString() },
      },
    });
    expect(upstream.requests).toHaveLength(1);
  });

  it("refuses a cached key from the moment its expiry passes, on the next call after it", async () => {
    const { secret, key } = await create({ name: "expires while cached" });
    const at = new Date(Date.now() + 1_500);
    const patched = await call(keyRoute.PATCH, "PATCH", { id: key.id }, { expiresAt: at.toISOString() });
    expect(patched.status).toBe(200);
    upstream.enqueue({ kind: "text", text: "before", usage: { input: 3, output: 2 } });
    expect((await chat(secret)).choices[0]!.message.content).toBe("before");
    // The key is in this process's cache now; nothing tells the cache when the instant passes.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, at.getTime() - Date.now()) + 50));
    const refusal = await openaiRefusal(secret);
    expect(refusal.code).toBe("key_expired");
    expect(refusal.message).toContain(at.toISOString());
    expect(upstream.requests).toHaveLength(1);
  });

  it("rotates: the successor carries tools, limits and guardrail scopes, both work in the overlap, the old key expires after it", async () => {
    const old = await create({ name: "billing app", allowedTools: ["current_time"] });
    await app.db.insert(usageLimit).values({
      tenantId: acme,
      scope: "key",
      subjectId: old.key.id,
      requestsPerMinute: 500,
      dailyHardUsd: "25",
    });
    // Its end users' template too.
    await app.db.insert(usageLimit).values({
      tenantId: acme,
      scope: "end_user_template",
      subjectId: old.key.id,
      requestsPerMinute: 20,
    });
    const rules = [
      {
        id: "billing-pii",
        name: "billing pii",
        stage: "input",
        onError: "open",
        check: { type: "pii" },
        action: "log",
        scope: { keys: [old.key.id] },
      },
      {
        id: "everyone",
        name: "everyone",
        stage: "input",
        onError: "open",
        check: { type: "pii" },
        action: "log",
      },
    ];
    await app.db
      .insert(guardrailPolicy)
      .values({ tenantId: acme, rules })
      .onConflictDoUpdate({ target: guardrailPolicy.tenantId, set: { rules } });

    const started = Date.now();
    const rotated = await rotate(old.key.id, { overlapHours: 2 });
    expect(rotated.status).toBe(201);
    const { secret, key: successor, previous } = rotated.body;
    expect(secret).toMatch(/^tg_/);
    expect(secret).not.toBe(old.secret);
    expect(successor).toMatchObject({
      name: `billing app (rotated ${new Date().toISOString().slice(0, 10)})`,
      allowedTools: ["current_time"],
      rotatedFrom: old.key.id,
      rotatedTo: null,
      expiresAt: null,
    });
    expect(previous).toMatchObject({ id: old.key.id, rotatedTo: successor.id });
    const overlapEnd = Date.parse(previous.expiresAt);
    expect(overlapEnd).toBeGreaterThanOrEqual(started + 2 * HOUR);
    expect(overlapEnd).toBeLessThanOrEqual(Date.now() + 2 * HOUR);

    const limits = await app.db.select().from(usageLimit).where(eq(usageLimit.subjectId, successor.id));
    const own = limits.find((l) => l.scope === "key");
    expect(own).toMatchObject({ tenantId: acme, requestsPerMinute: 500 });
    expect(Number(own!.dailyHardUsd)).toBe(25);
    expect(limits.find((l) => l.scope === "end_user_template")).toMatchObject({ requestsPerMinute: 20 });
    const [policy] = await app.db.select().from(guardrailPolicy).where(eq(guardrailPolicy.tenantId, acme));
    expect(policy!.rules.map((r) => (r.scope as { keys?: string[] } | undefined)?.keys)).toEqual([
      [old.key.id, successor.id],
      undefined,
    ]);
    const [change] = await app.db
      .select()
      .from(adminChange)
      .where(and(eq(adminChange.objectId, old.key.id), eq(adminChange.action, "api_key.rotated")));
    expect(change!.after).toMatchObject({ rotatedTo: successor.id, overlapHours: 2, limitsCopied: true });

    // The overlap: both keys answer.
    upstream.enqueue({ kind: "text", text: "old key", usage: { input: 3, output: 2 } });
    upstream.enqueue({ kind: "text", text: "new key", usage: { input: 3, output: 2 } });
    expect((await chat(old.secret)).choices[0]!.message.content).toBe("old key");
    expect((await chat(secret)).choices[0]!.message.content).toBe("new key");

    // After it: the old key is key_expired (exactly at the instant the rotation set), the successor still answers.
    await expireInDb(old.key.id, new Date(Date.now() - 1_000));
    expect((await openaiRefusal(old.secret)).code).toBe("key_expired");
    expect((await anthropicRefusal(old.secret)).error).toMatchObject({
      error: { type: "authentication_error" },
    });
    upstream.enqueue({ kind: "text", text: "still new", usage: { input: 3, output: 2 } });
    expect((await chat(secret)).choices[0]!.message.content).toBe("still new");

    // A key rotates once: again is 409 naming the successor.
    const again = await rotate(old.key.id, { overlapHours: 1 });
    expect(again.status).toBe(409);
    expect(again.body.error.message).toContain(successor.name);
    expect(again.body.error.message).toContain(successor.id);

    // Revoking works as before, for either key.
    expect((await call(keyRoute.DELETE, "DELETE", { id: successor.id })).status).toBe(200);
    expect((await openaiRefusal(secret)).code).toBe("invalid_api_key");
    expect((await call(keyRoute.DELETE, "DELETE", { id: old.key.id })).status).toBe(200);
    expect((await openaiRefusal(old.secret)).code).toBe("invalid_api_key");
  });

  it("with no overlap the old key stops at once, and an earlier expiry is kept; the successor gets the same lifetime", async () => {
    const old = await create({ name: "cut over now" });
    upstream.enqueue({ kind: "text", text: "cached", usage: { input: 3, output: 2 } });
    await chat(old.secret); // cached in this process: the rotation must reach the cache
    const rotated = await rotate(old.key.id, { overlapHours: 0 });
    expect(rotated.status).toBe(201);
    expect((await openaiRefusal(old.secret)).code).toBe("key_expired");
    upstream.enqueue({ kind: "text", text: "successor", usage: { input: 3, output: 2 } });
    expect((await chat(rotated.body.secret)).choices[0]!.message.content).toBe("successor");

    const soon = await create({ name: "ends in a day", expiresInDays: 1 });
    const kept = await rotate(soon.key.id, { overlapHours: 72 });
    expect(kept.status).toBe(201);
    expect(kept.body.previous.expiresAt).toBe(soon.key.expiresAt);
    const lifetime = Date.parse(kept.body.key.expiresAt) - Date.now();
    expect(lifetime).toBeGreaterThan(DAY - 60_000);
    expect(lifetime).toBeLessThanOrEqual(DAY);
  });

  it("refuses a bad overlap (422 naming it), another tenant's key (404), a member (403) and a revoked key (404)", async () => {
    const { key } = await create({ name: "guarded" });
    for (const overlapHours of [-1, 721, 1.5, "24"]) {
      const res = await rotate(key.id, { overlapHours });
      expect({ overlapHours, status: res.status, fields: Object.keys(res.body.error.fields ?? {}) }).toEqual({
        overlapHours,
        status: 422,
        fields: ["overlapHours"],
      });
    }
    await as("admin@globex.test", "globex");
    expect((await rotate(key.id, { overlapHours: 1 })).status).toBe(404);
    expect((await call(keyRoute.PATCH, "PATCH", { id: key.id }, { expiresAt: null })).status).toBe(404);
    await as("member@acme.test", "acme");
    expect((await rotate(key.id, { overlapHours: 1 })).status).toBe(403);
    await as("admin@acme.test", "acme");
    const [row] = await app.db.select().from(apiKey).where(eq(apiKey.id, key.id));
    expect(row).toMatchObject({ rotatedTo: null, expiresAt: null });
    await call(keyRoute.DELETE, "DELETE", { id: key.id });
    expect((await rotate(key.id, { overlapHours: 1 })).status).toBe(404);
    const successors = await app.db.select().from(apiKey).where(eq(apiKey.rotatedFrom, key.id));
    expect(successors).toEqual([]);
  });
});
