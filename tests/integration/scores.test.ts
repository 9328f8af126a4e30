// Scores end to end on each database: people's feedback and applications' scores through POST /api/scores (a
// session) and POST /v1/scores (a tenant key), validated by the tenant's score configs; one changeable row per
// person; another tenant's turns, runs and scores are never reached, listed or filtered.
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { score, scoreConfig, sysAgentTurn } from "@/db/schema";
import { createApiKey } from "@/features/keys/server/keys";
import { useSeededAppDatabase } from "../helpers/app-db";
import { testDbKinds } from "../helpers/db";
import { session } from "../helpers/session";

vi.mock("@/lib/auth/session", () => import("../helpers/session"));

const scoresRoute = await import("@/app/api/scores/route");

type Handler = (req: Request, segment: { params: Promise<Record<string, string>> }) => Promise<Response>;

describe.each(testDbKinds)("scores on %s", (kind) => {
  let app: Awaited<ReturnType<typeof useSeededAppDatabase>>;
  let acme: string;
  let globex: string;
  let acmeKey: string;
  let acmeKeyId: string;
  let globexKey: string;
  /** Acme's turns: two in the run "checkout-1", one alone; Globex's one turn. */
  const turn = {
    a: crypto.randomUUID(),
    b: crypto.randomUUID(),
    c: crypto.randomUUID(),
    g: crypto.randomUUID(),
  };

  beforeAll(async () => {
    app = await useSeededAppDatabase(kind);
    acme = await app.tenantId("acme");
    globex = await app.tenantId("globex");
    const acmeAdmin = await app.userId("admin@acme.test");
    const k1 = await createApiKey(app.db, { tenantId: acme, name: "scorer", createdBy: acmeAdmin });
    acmeKey = k1.secret;
    acmeKeyId = k1.key.id;
    const k2 = await createApiKey(app.db, {
      tenantId: globex,
      name: "scorer",
      createdBy: await app.userId("admin@globex.test"),
    });
    globexKey = k2.secret;
    const row = (id: string, tenantId: string, runId: string | null, model: string) => ({
      id,
      tenantId,
      source: "api" as const,
      requestedModel: model,
      servedModel: model,
      runId,
      cost: "0.01",
      status: "success" as const,
      startedAt: new Date(),
    });
    await app.db
      .insert(sysAgentTurn)
      .values([
        row(turn.a, acme, "checkout-1", "fast"),
        row(turn.b, acme, "checkout-1", "smart"),
        row(turn.c, acme, null, "fast"),
        row(turn.g, globex, "checkout-1", "fast"),
      ]);
  });
  afterAll(async () => {
    await app.close();
  });
  beforeEach(async () => {
    await app.db.delete(score);
    await app.db.delete(scoreConfig);
    await as("admin@acme.test");
  });

  const as = async (email: string, slug = "acme") => {
    session.claims = { userId: await app.userId(email), tenantId: await app.tenantId(slug) };
  };
  const call = async (handler: Handler, method: string, body?: unknown, query = "") => {
    const res = await handler(
      new Request(`http://app/api/scores${query}`, {
        method,
        body: body === undefined ? undefined : JSON.stringify(body),
        headers: { "content-type": "application/json" },
      }),
      { params: Promise.resolve({}) },
    );
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
  const post = (body: unknown) => call(scoresRoute.POST as Handler, "POST", body);
  const list = (query: string) => call(scoresRoute.GET as Handler, "GET", undefined, query);
  const v1 = async (body: unknown, secret = acmeKey) => {
    const res = await app.container.v1.handler(
      new Request("http://app/v1/scores", {
        method: "POST",
        body: JSON.stringify(body),
        headers: { "content-type": "application/json", authorization: `Bearer ${secret}` },
      }),
    );
    return { status: res.status, body: await res.json() };
  };

  it("a person's thumbs is one row they change: 201, then 200 with the new value, listed once", async () => {
    const first = await post({ turnId: turn.a, name: "thumbs", value: true });
    expect(first.status).toBe(201);
    expect(first.body.score).toMatchObject({
      turnId: turn.a,
      runId: "checkout-1",
      name: "thumbs",
      type: "boolean",
      value: true,
      source: "human",
      userId: await app.userId("admin@acme.test"),
      apiKeyId: null,
    });
    const second = await post({ turnId: turn.a, name: "thumbs", value: false, comment: "wrong total" });
    expect(second.status).toBe(200);
    expect(second.body.score).toMatchObject({
      id: first.body.score.id,
      value: false,
      comment: "wrong total",
    });
    // Another person's vote is a row of theirs.
    await as("member@acme.test");
    expect((await post({ turnId: turn.a, name: "thumbs", value: true })).status).toBe(201);
    const listed = await list(`?turnId=${turn.a}`);
    expect(listed.status).toBe(200);
    expect(listed.body.scores.map((s: { value: boolean }) => s.value)).toEqual([false, true]);
    expect(await app.db.select().from(score).where(eq(score.turnId, turn.a))).toHaveLength(2);
  });

  it("members send human scores only; admins may send api and eval scores through a session", async () => {
    await as("member@acme.test");
    const refused = await post({ turnId: turn.a, name: "helpful", value: 1, source: "api" });
    expect(refused.status).toBe(403);
    await as("admin@acme.test");
    const api = await post({ turnId: turn.a, name: "helpful", value: 1, source: "api" });
    expect(api.status).toBe(201);
    expect(api.body.score).toMatchObject({ source: "api", userId: await app.userId("admin@acme.test") });
    // api scores are rows of their own, never changed by the next one.
    expect((await post({ turnId: turn.a, name: "helpful", value: 0.5, source: "api" })).status).toBe(201);
    expect((await post({ turnId: turn.a, name: "helpful", value: 0.5, source: "eval" })).status).toBe(201);
  });

  it("a key's score is api by default and carries the key; human is refused, 422 naming source", async () => {
    const put = await v1({ turnId: turn.b, name: "helpfulness", value: 0.25, comment: "terse" });
    expect(put.status).toBe(201);
    expect(put.body.score).toMatchObject({
      turnId: turn.b,
      name: "helpfulness",
      type: "numeric",
      value: 0.25,
      source: "api",
      apiKeyId: acmeKeyId,
      userId: null,
    });
    const evalScore = await v1({ runId: "checkout-1", name: "passed", value: true, source: "eval" });
    expect(evalScore.status).toBe(201);
    expect(evalScore.body.score).toMatchObject({ turnId: null, runId: "checkout-1", source: "eval" });
    const human = await v1({ turnId: turn.b, name: "thumbs", value: true, source: "human" });
    expect(human.status).toBe(422);
    expect(human.body.error).toMatchObject({ param: "source", type: "invalid_request_error" });
    // A run's listing holds its turns' scores and its own.
    const run = await list("?runId=checkout-1");
    expect(run.body.scores.map((s: { name: string }) => s.name)).toEqual(["helpfulness", "passed"]);
  });

  it("bad values are 422 naming the field, on both routes; no key is 401 in OpenAI's shape", async () => {
    const noTarget = await post({ name: "thumbs", value: true });
    expect(noTarget.status).toBe(422);
    expect(noTarget.body.error.fields).toHaveProperty("turnId");
    const badName = await post({ turnId: turn.a, name: "no spaces", value: true });
    expect(badName.body.error.fields).toHaveProperty("name");
    const badValue = await v1({ turnId: turn.a, name: "x", value: { a: 1 } });
    expect(badValue.status).toBe(422);
    expect(badValue.body.error.param).toBe("value");
    const extra = await v1({ turnId: turn.a, name: "x", value: 1, secret: true });
    expect(extra.status).toBe(422);
    const noKey = await v1({ turnId: turn.a, name: "x", value: 1 }, "tg_nope");
    expect(noKey.status).toBe(401);
    expect(noKey.body.error.code).toBe("invalid_api_key");
  });

  it("another tenant's turn or run is 404 on both routes and both credentials, and its scores never list", async () => {
    expect((await post({ turnId: turn.g, name: "thumbs", value: true })).status).toBe(404);
    expect((await list(`?turnId=${turn.g}`)).status).toBe(404);
    const v1Other = await v1({ turnId: turn.g, name: "thumbs", value: true });
    expect(v1Other.status).toBe(404);
    expect(v1Other.body.error.code).toBe("not_found");
    // Globex scores its own turn of a run with the same name as Acme's: Acme's run listing does not show it.
    expect((await v1({ turnId: turn.g, name: "helpfulness", value: 1 }, globexKey)).status).toBe(201);
    await as("multi@tollgate.test", "globex");
    expect((await post({ turnId: turn.g, name: "thumbs", value: false })).status).toBe(201);
    await as("admin@acme.test");
    expect((await list("?runId=checkout-1")).body.scores).toEqual([]);
    expect((await list(`?turnId=${turn.a}`)).body.scores).toEqual([]);
    const rows = await app.db
      .select()
      .from(score)
      .where(and(eq(score.tenantId, acme)));
    expect(rows).toEqual([]);
  });
});
