import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { appUser, sysAgentTurn, usageLimit } from "@/db/schema";
import { createApiKey, revokeApiKey } from "@/features/keys/server/keys";
import { useSeededAppDatabase } from "../helpers/app-db";
import { testDbKinds } from "../helpers/db";
import { session } from "../helpers/session";

vi.mock("@/lib/auth/session", () => import("../helpers/session"));

const limitsRoute = await import("@/app/api/governance/limits/route");
const settingsRoute = await import("@/app/api/governance/settings/route");

type Handler = (req: Request, segment: { params: Promise<never> }) => Promise<Response>;
async function call(handler: Handler, method: string, body?: unknown) {
  const res = await handler(
    new Request("http://app.test/api/governance/limits", {
      method,
      headers: { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
    { params: Promise.resolve({}) as Promise<never> },
  );
  return { status: res.status, body: await res.json() };
}

describe.each(testDbKinds)("PUT /api/governance/limits with scope end_user on %s", (kind) => {
  let app: Awaited<ReturnType<typeof useSeededAppDatabase>>;
  let acme: string;
  let globex: string;
  let admin: string;

  beforeAll(async () => {
    app = await useSeededAppDatabase(kind);
    acme = await app.tenantId("acme");
    globex = await app.tenantId("globex");
    admin = await app.userId("admin@acme.test");
    const [u] = await app.db.select().from(appUser).where(eq(appUser.id, admin));
    session.claims = { userId: admin, tenantId: acme, epoch: u!.sessionEpoch };
  });
  afterAll(() => app.close());

  const put = (body: unknown) => call(limitsRoute.PUT as Handler, "PUT", body);
  const templateRow = (subjectId: string) =>
    app.db
      .select()
      .from(usageLimit)
      .where(
        and(
          eq(usageLimit.tenantId, acme),
          eq(usageLimit.scope, "end_user_template"),
          eq(usageLimit.subjectId, subjectId),
        ),
      );

  it("stores a key's template and the tenant's, and the settings answer shows each", async () => {
    const { key } = await createApiKey(app.db, { tenantId: acme, name: "templated", createdBy: admin });
    expect(
      await put({ scope: "end_user", subjectId: key.id, requestsPerMinute: 10, dailyHardUsd: "2" }),
    ).toMatchObject({ status: 200, body: { limits: { requestsPerMinute: 10, dailyHardUsd: "2" } } });
    expect(await put({ scope: "end_user", monthlySoftUsd: "5", monthlyHardUsd: "20" })).toMatchObject({
      status: 200,
    });
    expect(await templateRow(key.id)).toHaveLength(1);
    expect(await templateRow(acme)).toHaveLength(1);
    // The key's own limits are untouched: a template is not the key's limit.
    const settings = await call(settingsRoute.GET as Handler, "GET");
    expect(settings.status).toBe(200);
    const row = settings.body.keys.find((k: { id: string }) => k.id === key.id);
    expect(row).toMatchObject({ limits: null, endUserLimits: { requestsPerMinute: 10, dailyHardUsd: "2" } });
    expect(settings.body.tenantEndUserLimits).toMatchObject({ monthlySoftUsd: "5", monthlyHardUsd: "20" });
    expect(settings.body.tenantLimits).toBeNull();
    expect(settings.body.topEndUsers).toEqual(expect.any(Array));
    // Every value empty removes it.
    expect(await put({ scope: "end_user", subjectId: key.id })).toEqual({
      status: 200,
      body: { limits: null },
    });
    expect(await templateRow(key.id)).toHaveLength(0);
  });

  it("sums only the priced calls of today's top end users, and counts the unpriced ones apart (never as free)", async () => {
    const turn = (endUser: string, cost: string | null, startedAt = new Date()) => ({
      id: crypto.randomUUID(),
      tenantId: acme,
      userId: admin,
      source: "api" as const,
      requestedModel: "house-model",
      status: "success" as const,
      endUser,
      cost,
      costStatus: cost === null ? ("unpriced" as const) : ("priced" as const),
      startedAt,
    });
    await app.db.insert(sysAgentTurn).values([
      turn("mixed-user", "0.12"),
      turn("mixed-user", null),
      turn("mixed-user", null),
      turn("mixed-user", null),
      turn("unpriced-user", null),
      turn("unpriced-user", null),
      turn("priced-user", "0.05"),
      turn("priced-user", "0.0000001"),
      // Yesterday's call is not today's.
      turn("priced-user", "9", new Date(Date.now() - 2 * 86_400_000)),
      // Another tenant's end user of the same name is not Acme's.
      { ...turn("mixed-user", "5"), tenantId: globex },
    ]);
    const settings = await call(settingsRoute.GET as Handler, "GET");
    expect(settings.status).toBe(200);
    const top = settings.body.topEndUsers as { endUser: string }[];
    const mine = top.filter((u) => u.endUser.endsWith("-user"));
    // Most priced spend first; a user with nothing priced is last, not ranked as $0.
    expect(mine).toEqual([
      { endUser: "mixed-user", calls: 4, unpricedCalls: 3, costToday: "0.12" },
      { endUser: "priced-user", calls: 2, unpricedCalls: 0, costToday: "0.0500001" },
      { endUser: "unpriced-user", calls: 2, unpricedCalls: 2, costToday: null },
    ]);
  });

  it("refuses a template whose soft budget is above its hard one, or whose rate is not a whole number", async () => {
    const soft = await put({ scope: "end_user", dailySoftUsd: "3", dailyHardUsd: "2" });
    expect(soft.status).toBe(422);
    expect(soft.body.error.fields.dailySoftUsd).toEqual([expect.stringContaining("cannot be above 2")]);
    const rate = await put({ scope: "end_user", requestsPerMinute: 2.5 });
    expect(rate.status).toBe(422);
    expect(rate.body.error.fields).toHaveProperty("requestsPerMinute");
  });

  it("refuses a template for another tenant's key (404) or a revoked key (409)", async () => {
    const other = await createApiKey(app.db, { tenantId: globex, name: "theirs", createdBy: admin });
    expect(await put({ scope: "end_user", subjectId: other.key.id, requestsPerMinute: 1 })).toMatchObject({
      status: 404,
      body: { error: { code: "not_found" } },
    });
    expect(await templateRow(other.key.id)).toHaveLength(0);
    const { key } = await createApiKey(app.db, { tenantId: acme, name: "gone", createdBy: admin });
    await revokeApiKey(app.db, { tenantId: acme, id: key.id });
    expect(await put({ scope: "end_user", subjectId: key.id, requestsPerMinute: 1 })).toMatchObject({
      status: 409,
      body: { error: { code: "conflict" } },
    });
  });
});
