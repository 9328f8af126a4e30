// Scores end to end on each database: people's feedback and applications' scores through POST /api/scores (a
// session) and POST /v1/scores (a tenant key), validated by the tenant's score configs; one changeable row per
// person; another tenant's turns, runs and scores are never reached, listed or filtered.

import { and, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { rowsOf } from "@/db/client";
import { adminChange, score, scoreConfig, sysAgentTurn } from "@/db/schema";
import { createApiKey } from "@/features/keys/server/keys";
import { promptVersionStats } from "@/features/prompts/server/stats";
import { turnReplay } from "@/features/replay/server/replay";
import { runReplay } from "@/features/replay/server/run-replay";
import { recordEvalScores } from "@/features/scores/server";
import { reconcileRollups } from "@/lib/governance/reconcile";
import { useSeededAppDatabase } from "../helpers/app-db";
import { testDbKinds } from "../helpers/db";
import { startLeanApi } from "../helpers/lean-api";
import { renderReplay } from "../helpers/render-replay";
import { renderRunReplay } from "../helpers/render-run-replay";
import { schemaJson } from "../helpers/schema-api";
import { session } from "../helpers/session";

vi.mock("@/lib/auth/session", () => import("../helpers/session"));

const scoresRoute = await import("@/app/api/scores/route");
const configsRoute = await import("@/app/api/score-configs/route");
const configRoute = await import("@/app/api/score-configs/[id]/route");
const archiveRoute = await import("@/app/api/score-configs/[id]/archive/route");
const qualityRoute = await import("@/app/api/scores/quality/route");

type Handler = (req: Request, segment: { params: Promise<Record<string, string>> }) => Promise<Response>;

describe.each(testDbKinds)("scores on %s", (kind) => {
  let app: Awaited<ReturnType<typeof useSeededAppDatabase>>;
  let acme: string;
  let globex: string;
  let acmeKey: string;
  let acmeKeyId: string;
  let globexKey: string;
  /** Acme's turns: two in the run "checkout-1" (a is member@acme's own), one alone; Globex's one turn. */
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
    const member = await app.userId("member@acme.test");
    const globexAdmin = await app.userId("admin@globex.test");
    const row = (id: string, tenantId: string, runId: string | null, model: string) => ({
      id,
      tenantId,
      // The member's own drawer turn is a; the rest are API calls (of a key each tenant's admin made).
      userId: id === turn.a ? member : tenantId === acme ? acmeAdmin : globexAdmin,
      source: "api" as const,
      requestedModel: model,
      servedAdapter: "openai",
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
    // The daily rollup the closing transaction keeps, for the turns written here directly.
    const today = new Date().toISOString().slice(0, 10);
    await reconcileRollups(app.db, { from: today, to: today, repair: true });
  });
  afterAll(async () => {
    await app.close();
  });
  beforeEach(async () => {
    await app.db.delete(score);
    await app.db.delete(scoreConfig);
    await as("admin@acme.test");
  });

  const as = async (email: string, slug: string | null = "acme") => {
    session.claims = { userId: await app.userId(email), tenantId: slug ? await app.tenantId(slug) : null };
  };
  /** The ledger's rows for a query, by turn id, with their Feedback column. */
  const ledger = async (query: string) => {
    const { status, body } = await schemaJson(`agent-turns/rows?${query}`);
    expect(status, query).toBe(200);
    return new Map((body.rows as { id: string; feedback: string | null }[]).map((r) => [r.id, r.feedback]));
  };
  const ids = async (query: string) => [...(await ledger(query)).keys()].sort();
  const sorted = (...list: string[]) => [...list].sort();
  const call = async (
    handler: Handler,
    method: string,
    body?: unknown,
    query = "",
    params: Record<string, string> = {},
  ) => {
    const res = await handler(
      new Request(`http://app/api/scores${query}`, {
        method,
        body: body === undefined ? undefined : JSON.stringify(body),
        headers: { "content-type": "application/json" },
      }),
      { params: Promise.resolve(params) },
    );
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
  const post = (body: unknown) => call(scoresRoute.POST as Handler, "POST", body);
  const list = (query: string) => call(scoresRoute.GET as Handler, "GET", undefined, query);
  const newConfig = (body: unknown) => call(configsRoute.POST as Handler, "POST", body);
  const patchConfig = (id: string, body: unknown) =>
    call(configRoute.PATCH as Handler, "PATCH", body, "", { id });
  const archiveConfig = (id: string) => call(archiveRoute.POST as Handler, "POST", undefined, "", { id });
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
    const second = await post({
      turnId: turn.a,
      name: "thumbs",
      value: false,
      comment: "wrong total; it printed password=hunter2",
    });
    expect(second.status).toBe(200);
    // The row carries its turn's start and served model (the score filters' index orders by them).
    const [stored] = await app.db.select().from(score).where(eq(score.id, first.body.score.id));
    const [scored] = await app.db.select().from(sysAgentTurn).where(eq(sysAgentTurn.id, turn.a));
    expect(stored!.turnStartedAt?.getTime()).toBe(scored!.startedAt.getTime());
    expect(stored!.turnModel).toBe("fast");
    // The comment is stored masked, as the audit masks text.
    expect(second.body.score).toMatchObject({
      id: first.body.score.id,
      value: false,
      comment: "wrong total; it printed password=[masked]",
    });
    // Another person's vote is a row of theirs.
    await as("member@acme.test");
    expect((await post({ turnId: turn.a, name: "thumbs", value: true })).status).toBe(201);
    const listed = await list(`?turnId=${turn.a}`);
    expect(listed.status).toBe(200);
    expect(listed.body.scores.map((s: { value: boolean }) => s.value)).toEqual([false, true]);
    expect(await app.db.select().from(score).where(eq(score.turnId, turn.a))).toHaveLength(2);
  });

  it("a member scores and lists their own turns only; another person's turn is 404 to them", async () => {
    await as("member@acme.test");
    expect((await post({ turnId: turn.b, name: "thumbs", value: true })).status).toBe(404);
    expect((await post({ runId: "checkout-1", name: "thumbs", value: true })).status).toBe(201);
    expect((await list(`?turnId=${turn.b}`)).status).toBe(404);
    expect((await list(`?turnId=${turn.a}`)).status).toBe(200);
    await as("admin@acme.test");
    expect((await post({ turnId: turn.b, name: "thumbs", value: true })).status).toBe(201);
    expect((await list(`?turnId=${turn.b}`)).body.scores).toHaveLength(1);
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

  it("score configs validate scores of their name on both routes: type, range, categories", async () => {
    const helpful = await newConfig({ name: "helpfulness", type: "numeric", min: 0, max: 1 });
    expect(helpful.status).toBe(201);
    expect(helpful.body.config).toMatchObject({ name: "helpfulness", type: "numeric", min: 0, max: 1 });
    expect(
      (await newConfig({ name: "verdict", type: "categorical", categories: ["good", "bad"] })).status,
    ).toBe(201);
    expect((await newConfig({ name: "thumbs", type: "boolean" })).status).toBe(201);

    const tooHigh = await post({ turnId: turn.a, name: "helpfulness", value: 3 });
    expect(tooHigh.status).toBe(422);
    expect(tooHigh.body.error.fields.value[0]).toContain("at most 1");
    const wrongType = await v1({ turnId: turn.a, name: "helpfulness", value: "great" });
    expect(wrongType.status).toBe(422);
    expect(wrongType.body.error).toMatchObject({ param: "value" });
    expect(wrongType.body.error.message).toContain("numeric");
    const notACategory = await v1({ turnId: turn.a, name: "verdict", value: "meh" });
    expect(notACategory.status).toBe(422);
    expect(notACategory.body.error.message).toContain('"good", "bad"');
    expect((await post({ turnId: turn.a, name: "thumbs", value: 1 })).status).toBe(422);

    expect((await v1({ turnId: turn.a, name: "helpfulness", value: 0.75 })).status).toBe(201);
    const good = await post({ turnId: turn.a, name: "verdict", value: "good" });
    expect(good.body.score).toMatchObject({ type: "categorical", value: "good" });
    expect(await app.db.select().from(score)).toHaveLength(2);
  });

  it("a config's range and categories change (name and type stay), and an archived config validates nothing new", async () => {
    const created = await newConfig({ name: "stars", type: "numeric", min: 1, max: 5 });
    const id = created.body.config.id as string;
    expect((await post({ turnId: turn.a, name: "stars", value: 7 })).status).toBe(422);
    const widened = await patchConfig(id, { max: 10, description: "1 to 10 now" });
    expect(widened.status).toBe(200);
    expect(widened.body.config).toMatchObject({ name: "stars", min: 1, max: 10, description: "1 to 10 now" });
    expect((await post({ turnId: turn.a, name: "stars", value: 7 })).status).toBe(201);
    expect((await patchConfig(id, { name: "rating" })).status).toBe(422);
    expect((await patchConfig(id, { type: "boolean" })).status).toBe(422);
    const inverted = await patchConfig(id, { min: 20 });
    expect(inverted.status).toBe(422);
    expect(inverted.body.error.fields).toHaveProperty("max");
    expect((await patchConfig(id, { categories: ["a"] })).body.error.fields).toHaveProperty("categories");

    const archived = await archiveConfig(id);
    expect(archived.status).toBe(200);
    expect(archived.body.config.archivedAt).not.toBeNull();
    // Archived: a score of that name is taken as it comes (any type, any number).
    expect((await post({ turnId: turn.b, name: "stars", value: 99 })).status).toBe(201);
    expect((await v1({ turnId: turn.b, name: "stars", value: "many" })).status).toBe(201);
    const listed = await call(configsRoute.GET as Handler, "GET");
    expect(listed.body.configs).toMatchObject([{ name: "stars", archivedAt: expect.any(String) }]);
    // A name is the tenant's once, archived or not.
    expect((await newConfig({ name: "stars", type: "boolean" })).status).toBe(409);

    const changes = await app.db
      .select()
      .from(adminChange)
      .where(and(eq(adminChange.tenantId, acme), eq(adminChange.objectId, id)));
    expect(changes.map((c) => c.action).sort()).toEqual([
      "score_config.archived",
      "score_config.created",
      "score_config.updated",
    ]);
  });

  it("score configs are tenant admins' and the tenant's own: members 403, another tenant's 404, its config never validates here", async () => {
    await as("admin@globex.test", "globex");
    const theirs = await newConfig({ name: "helpfulness", type: "boolean" });
    expect(theirs.status).toBe(201);
    await as("admin@acme.test");
    // Globex's boolean config does not bind Acme's scores of that name.
    expect((await v1({ turnId: turn.a, name: "helpfulness", value: 0.3 })).status).toBe(201);
    expect((await call(configsRoute.GET as Handler, "GET")).body.configs).toEqual([]);
    expect((await patchConfig(theirs.body.config.id, { description: "mine now" })).status).toBe(404);
    expect((await archiveConfig(theirs.body.config.id)).status).toBe(404);
    await as("member@acme.test");
    expect((await call(configsRoute.GET as Handler, "GET")).status).toBe(403);
    expect((await newConfig({ name: "x", type: "boolean" })).status).toBe(403);
    const bad = await (async () => {
      await as("admin@acme.test");
      return newConfig({ name: "x", type: "categorical" });
    })();
    expect(bad.status).toBe(422);
    expect(bad.body.error.fields).toHaveProperty("categories");
    const thumbs = await newConfig({ name: "thumbs", type: "numeric", min: 0, max: 5 });
    expect(thumbs.status).toBe(422);
    expect(thumbs.body.error.fields.type[0]).toContain("drawer's thumbs");
  });

  it("the ledger's Feedback column and filters: thumbs up / down / any and score comparisons, the tenant's only", async () => {
    // a: 👍👍👎 helpfulness 0.2, verdict good; b: 👎, helpfulness 0.9, verdict bad; c: nothing. Globex's g: 👎 0.1.
    await post({ turnId: turn.a, name: "thumbs", value: true });
    await post({ turnId: turn.b, name: "thumbs", value: false, comment: "wrong" });
    await as("member@acme.test");
    await post({ turnId: turn.a, name: "thumbs", value: true });
    await v1({ turnId: turn.a, name: "thumbs", value: false });
    await v1({ turnId: turn.a, name: "helpfulness", value: 0.2 });
    await v1({ turnId: turn.b, name: "helpfulness", value: 0.9 });
    await v1({ turnId: turn.a, name: "verdict", value: "good" });
    await v1({ turnId: turn.b, name: "verdict", value: "bad" });
    await v1({ runId: "checkout-1", name: "helpfulness", value: 0 });
    await v1({ turnId: turn.g, name: "thumbs", value: false }, globexKey);
    await v1({ turnId: turn.g, name: "helpfulness", value: 0.1 }, globexKey);
    await as("admin@acme.test");

    const all = await ledger("limit=200");
    expect(all.get(turn.a)).toBe("👍 2 · 👎 1");
    expect(all.get(turn.b)).toBe("👎 1");
    expect(all.get(turn.c)).toBeNull();
    expect(all.has(turn.g)).toBe(false);

    expect(await ids("f.feedback=down")).toEqual(sorted(turn.a, turn.b));
    expect(await ids("f.feedback=up")).toEqual([turn.a]);
    expect(await ids("f.feedback=any")).toEqual(sorted(turn.a, turn.b));
    expect(await ids("f.score=helpfulness<0.5")).toEqual([turn.a]);
    expect(await ids("f.score=helpfulness>=0.2")).toEqual(sorted(turn.a, turn.b));
    expect(await ids("f.score=helpfulness!=0.2")).toEqual([turn.b]);
    expect(await ids("f.score=verdict=good")).toEqual([turn.a]);
    expect(await ids("f.score=verdict!=good")).toEqual([turn.b]);
    expect(await ids("f.score=thumbs=false")).toEqual(sorted(turn.a, turn.b));
    expect(await ids("f.score=helpfulness<0.5&f.feedback=down")).toEqual([turn.a]);
    expect(await ids(`f.score=${encodeURIComponent("helpfulness < 0.95")}&f.runId=checkout-1`)).toEqual(
      sorted(turn.a, turn.b),
    );
    expect(await ids("f.score=nothing<1")).toEqual([]);
    // Page by page (the score index drives the newest-first page; its cursor continues it), each turn once however
    // many of its scores fit; sorted by another column, the same turns; the count counts turns, not scores.
    const walk = async (query: string) => {
      const seen: string[] = [];
      let cursor: string | null = "";
      for (let i = 0; i < 5 && cursor !== null; i++) {
        const next: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : "";
        const { status, body } = await schemaJson(`agent-turns/rows?${query}&limit=1${next}`);
        expect(status, query).toBe(200);
        seen.push(...(body.rows as { id: string }[]).map((r) => r.id));
        cursor = body.nextCursor as string | null;
      }
      return seen;
    };
    const newestFirst = await walk("f.feedback=any");
    expect(newestFirst).toHaveLength(2);
    expect(sorted(...newestFirst)).toEqual(sorted(turn.a, turn.b));
    expect(sorted(...(await walk("f.feedback=any&sort=cost:desc")))).toEqual(sorted(turn.a, turn.b));
    expect(await walk("f.feedback=down&f.runId=checkout-1&f.servedModel=smart")).toEqual([turn.b]);
    for (const [query, n] of [
      ["f.feedback=any", 2],
      ["f.feedback=down", 2],
      ["f.feedback=down&f.servedModel=smart", 1],
      ["f.score=verdict=good&sort=cost:desc", 1],
    ] as const) {
      const { status, body } = await schemaJson(`agent-turns/count?${query}`);
      expect([status, body.count], query).toEqual([200, n]);
    }
    // The detail names the other scores.
    const detail = await schemaJson(`agent-turns/detail/${turn.a}`);
    expect(detail.body.row).toMatchObject({
      feedback: "👍 2 · 👎 1",
      scoreList: "helpfulness 0.2, verdict good",
    });

    // Globex sees its own turn only, with its own scores; the super admin's all-tenant view sees both.
    await as("admin@globex.test", "globex");
    expect(await ids("f.feedback=down")).toEqual([turn.g]);
    expect(await ids("f.score=helpfulness<0.5")).toEqual([turn.g]);
    expect(await ids("f.score=verdict=good")).toEqual([]);
    await as("root@tollgate.test", null);
    expect(await ids("f.score=helpfulness<0.5")).toEqual(sorted(turn.a, turn.g));
    expect(await ids(`f.score=helpfulness<0.5&f.tenantId=${globex}`)).toEqual([turn.g]);
  });

  it("a bad feedback or score filter is a 422 naming the filter", async () => {
    for (const [query, says] of [
      ["f.feedback=sideways", "f.feedback must be one of up, down, any"],
      ["f.score=helpfulness", "f.score must be a score name, an operator and a value"],
      ["f.score=helpfulness<", 'f.score needs a value after "<"'],
      ["f.score=helpfulness<abc", 'compares a number with <: "abc" is not one'],
      ["f.score=%3C0.5", "a score needs a name"],
      ["f.score=a%20b<1", "letters, digits"],
      ["f.score=x=%3E1", "one operator only"],
      ["f.score=x!1", 'no operator "!"'],
    ] as const) {
      const { status, body } = await schemaJson(`agent-turns/rows?${query}`);
      expect(status, query).toBe(422);
      expect(body.error.message, query).toContain(says);
    }
  });

  it("the replay shows the turn's scores with who gave each, and only the turn's own", async () => {
    await post({ turnId: turn.a, name: "thumbs", value: false, comment: "It quoted last year's prices." });
    await v1({ turnId: turn.a, name: "helpfulness", value: 0.4 });
    await v1({ turnId: turn.b, name: "helpfulness", value: 1 });
    const replay = await turnReplay(app.db, { tenantId: acme, turnId: turn.a });
    expect(replay.scores).toEqual([
      expect.objectContaining({
        name: "thumbs",
        type: "boolean",
        value: false,
        comment: "It quoted last year's prices.",
        source: "human",
        who: "admin@acme.test",
      }),
      expect.objectContaining({
        name: "helpfulness",
        value: 0.4,
        source: "api",
        who: "scorer",
        comment: null,
      }),
    ]);
    // The page lists them under the summary: the thumbs as 👎, the number, who and as what, and the comment.
    const html = renderReplay(replay);
    expect(html).toContain('data-testid="replay-scores"');
    expect(html).toContain("👎");
    expect(html).toContain("admin@acme.test (human)");
    expect(html).toContain("scorer (api)");
    expect(html).toContain("It quoted last year");
    const none = await turnReplay(app.db, { tenantId: acme, turnId: turn.c });
    expect(none.scores).toEqual([]);
    expect(renderReplay(none)).not.toContain('data-testid="replay-scores"');
  });

  it("an evaluation's scores are the tenant's eval scores of its calls: filtered on the ledger, a config's refusal left out", async () => {
    await newConfig({ name: "eval:strict", type: "boolean" });
    const evalRunId = crypto.randomUUID();
    const result = await recordEvalScores(app.db, { tenantId: acme, evalRunId }, turn.c, [
      { name: "eval:contains", value: 0.25, comment: "missing Paris" },
      { name: "eval:strict", value: 0.5, comment: null },
    ]);
    expect(result.written).toBe(1);
    expect(result.refused).toEqual([expect.stringContaining("eval:strict")]);
    const [row] = await app.db.select().from(score).where(eq(score.evalRunId, evalRunId));
    expect(row).toMatchObject({
      turnId: turn.c,
      source: "eval",
      name: "eval:contains",
      value: 0.25,
      turnModel: "fast",
    });
    expect(row!.turnStartedAt).toBeInstanceOf(Date);
    expect(await ids("f.score=eval:contains<0.5")).toEqual([turn.c]);
  });

  it("a prompt's versions show their feedback and scores next to their cost, from the tenant's scores only", async () => {
    const v = (n: number, tenantId = acme) => ({
      id: crypto.randomUUID(),
      tenantId,
      source: "api" as const,
      requestedModel: "fast",
      promptName: "quality/check",
      promptVersion: n,
      cost: "0.02",
      status: "success" as const,
      startedAt: new Date(),
    });
    const [one, two, twoAgain, theirs] = [v(1), v(2), v(2), v(2, globex)];
    await app.db.insert(sysAgentTurn).values([one, two, twoAgain, theirs]);
    await post({ turnId: one.id, name: "thumbs", value: false });
    await post({ turnId: two.id, name: "thumbs", value: true });
    await post({ turnId: twoAgain.id, name: "thumbs", value: true });
    await v1({ turnId: two.id, name: "helpfulness", value: 0.5 });
    await v1({ turnId: twoAgain.id, name: "helpfulness", value: 1 });
    await v1({ turnId: twoAgain.id, name: "verdict", value: "good" });
    await v1({ turnId: theirs.id, name: "thumbs", value: false }, globexKey);
    const stats = await promptVersionStats(app.db, acme, "quality/check", 7);
    expect(stats.map((s) => [s.version, s.calls, s.scores])).toEqual([
      [
        2,
        2,
        [
          { name: "helpfulness", mean: 0.75, count: 2 },
          { name: "thumbs", mean: 1, count: 2 },
        ],
      ],
      [1, 1, [{ name: "thumbs", mean: 0, count: 1 }]],
    ]);
  });

  it("the cost dashboard's models show their feedback and scores next to their cost, the tenant's only", async () => {
    await post({ turnId: turn.a, name: "thumbs", value: true });
    await post({ turnId: turn.c, name: "thumbs", value: false });
    await post({ turnId: turn.b, name: "thumbs", value: false });
    await v1({ turnId: turn.b, name: "helpfulness", value: 0.3 });
    await v1({ turnId: turn.g, name: "thumbs", value: true }, globexKey);
    const { status, body } = await call(qualityRoute.GET as Handler, "GET", undefined, "?days=7");
    expect(status).toBe(200);
    const models = new Map((body.models as { model: string }[]).map((m) => [m.model, m]));
    // fast: a (👍) and c (👎), plus the seeded demo's calls, if any were served by a model of that name.
    expect(models.get("fast")).toMatchObject({ scores: [{ name: "thumbs", mean: 0.5, count: 2 }] });
    expect(models.get("smart")).toMatchObject({
      calls: 1,
      cost: "0.01",
      costPerCall: "0.01",
      scores: [
        { name: "helpfulness", mean: 0.3, count: 1 },
        { name: "thumbs", mean: 0, count: 1 },
      ],
    });
    // The daily rollup the means come from equals its scores after a vote changed and one taken back.
    await post({ turnId: turn.c, name: "thumbs", value: true });
    await app.db.delete(score).where(and(eq(score.turnId, turn.b), eq(score.name, "helpfulness")));
    const rollup = rowsOf<{ model: string; name: string; total: number; count: number }>(
      await app.db.execute(sql`select model, name, total::float8 as total, count from score_daily
        where tenant_id = ${acme} and count > 0 order by 1, 2`),
    );
    const fromScores = rowsOf<{ model: string; name: string; total: number; count: number }>(
      await app.db.execute(sql`select turn_model as model, name, sum(value)::float8 as total, count(*)::int as count
        from score where tenant_id = ${acme} and turn_id is not null and value is not null group by 1, 2 order by 1, 2`),
    );
    expect(rollup).toEqual(fromScores);
    expect(rollup).toContainEqual({ model: "fast", name: "thumbs", total: 2, count: 2 });
    expect((await call(qualityRoute.GET as Handler, "GET", undefined, "?days=365")).status).toBe(422);
    await as("member@acme.test");
    expect((await call(qualityRoute.GET as Handler, "GET", undefined, "?days=7")).status).toBe(403);
  });

  it("the lean gateway serves POST /v1/scores over HTTP as Next's route does", async () => {
    const lean = await startLeanApi(app.db, app.container.gateway);
    try {
      const send = (body: unknown, secret = acmeKey) =>
        fetch(`${lean.root}/v1/scores`, {
          method: "POST",
          headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
          body: JSON.stringify(body),
        });
      const put = await send({ turnId: turn.b, name: "latency_ok", value: true });
      expect(put.status).toBe(201);
      expect((await put.json()).score).toMatchObject({ source: "api", apiKeyId: acmeKeyId, value: true });
      const notJson = await fetch(`${lean.root}/v1/scores`, {
        method: "POST",
        headers: { authorization: `Bearer ${acmeKey}`, "content-type": "application/json" },
        body: "{not json",
      });
      expect(notJson.status).toBe(400);
      expect((await notJson.json()).error.type).toBe("invalid_request_error");
      expect((await send({ turnId: turn.g, name: "x", value: 1 })).status).toBe(404);
    } finally {
      await lean.close();
    }
  });

  it("a turn holds at most 1,000 scores: the next api score is a 409, a person's own vote still changes", async () => {
    await app.db.insert(score).values(
      Array.from({ length: 1_000 }, (_, i) => ({
        tenantId: acme,
        turnId: turn.c,
        name: "load",
        type: "numeric" as const,
        value: i,
        source: "api" as const,
      })),
    );
    const full = await v1({ turnId: turn.c, name: "load", value: 1 });
    expect(full.status).toBe(409);
    expect(full.body.error.code).toBe("score_limit_reached");
    expect((await post({ turnId: turn.c, name: "thumbs", value: true })).status).toBe(201);
    expect((await post({ turnId: turn.c, name: "thumbs", value: false })).status).toBe(200);
  });

  it("the run replay shows the scores on the run itself; its calls' scores stay on their own replays", async () => {
    await v1({ runId: "checkout-1", name: "resolved", value: true, source: "eval", comment: "paid" });
    await v1({ turnId: turn.a, name: "helpfulness", value: 0.5 });
    const replay = await runReplay(app.db, { tenantId: acme, runId: "checkout-1" });
    expect(replay.scores).toEqual([
      expect.objectContaining({
        name: "resolved",
        value: true,
        source: "eval",
        who: "scorer",
        comment: "paid",
      }),
    ]);
    const html = renderRunReplay(replay);
    expect(html).toContain('data-testid="replay-scores"');
    expect(html).toContain("scorer (eval)");
    // Globex's run of the same name has none of Acme's.
    expect((await runReplay(app.db, { tenantId: globex, runId: "checkout-1" })).scores).toEqual([]);
  });
});
