// Review queues end to end on each database: rules fill queues from the ledger and its scores (each turn once, a
// late-written turn caught by the look-back), reviewers claim items under leases (never one item to two reviewers,
// however many ask at once), done writes scores the tenant's configs validate, skip and lease expiry hand items on,
// "add to dataset" copies the turn, the reviewer right opens the reviewers' queues only, and another tenant's queues
// and items are 404.
import { and, eq, inArray } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import {
  adminChange,
  appUser,
  evalDataset,
  evalDatasetItem,
  membership,
  reviewItem,
  reviewQueue,
  score,
  scoreConfig,
  sysAgentAudit,
  sysAgentTurn,
} from "@/db/schema";
import {
  completeItem,
  FILL_LOOK_BACK_MS,
  fillDueQueues,
  nextItem,
  sampleBucket,
} from "@/features/reviews/server";
import { loadUserContext } from "@/lib/auth/users";
import { useSeededAppDatabase } from "../helpers/app-db";
import { testDbKinds } from "../helpers/db";
import { session } from "../helpers/session";

vi.mock("@/lib/auth/session", () => import("../helpers/session"));

const queuesRoute = await import("@/app/api/review-queues/route");
const queueRoute = await import("@/app/api/review-queues/[id]/route");
const archiveRoute = await import("@/app/api/review-queues/[id]/archive/route");
const fillRoute = await import("@/app/api/review-queues/[id]/fill/route");
const nextRoute = await import("@/app/api/review-queues/[id]/next/route");
const statsRoute = await import("@/app/api/review-queues/[id]/stats/route");
const itemsRoute = await import("@/app/api/review-queues/[id]/items/route");
const doneRoute = await import("@/app/api/review-queues/[id]/items/[itemId]/done/route");
const skipRoute = await import("@/app/api/review-queues/[id]/items/[itemId]/skip/route");
const datasetRoute = await import("@/app/api/review-queues/[id]/items/[itemId]/dataset/route");
const memberRoute = await import("@/app/api/admin/members/[userId]/route");

type Handler = (req: Request, segment: { params: Promise<Record<string, string>> }) => Promise<Response>;

describe.each(testDbKinds)("review queues on %s", (kind) => {
  let app: Awaited<ReturnType<typeof useSeededAppDatabase>>;
  let acme: string;
  let globex: string;
  let acmeAdmin: string;
  let member: string;
  /** Five more reviewers of Acme (the reviewer right), for the claims. */
  const reviewers: string[] = [];

  beforeAll(async () => {
    app = await useSeededAppDatabase(kind);
    acme = await app.tenantId("acme");
    globex = await app.tenantId("globex");
    acmeAdmin = await app.userId("admin@acme.test");
    member = await app.userId("member@acme.test");
    for (let i = 0; i < 5; i++) {
      const [user] = await app.db
        .insert(appUser)
        .values({ email: `reviewer${i}@acme.test`, name: `Reviewer ${i}` })
        .returning();
      await app.db.insert(membership).values({ tenantId: acme, userId: user!.id, reviewer: true });
      reviewers.push(user!.id);
    }
  });
  afterAll(async () => {
    await app.close();
  });
  beforeEach(async () => {
    // Each test starts from an empty ledger, so a rule's matches are the test's own turns.
    await app.db.delete(reviewQueue);
    await app.db.delete(score);
    await app.db.delete(scoreConfig);
    await app.db.delete(sysAgentTurn).where(inArray(sysAgentTurn.tenantId, [acme, globex]));
    await app.db.update(membership).set({ reviewer: false }).where(eq(membership.userId, member));
    await as("admin@acme.test");
  });

  const as = async (email: string | null, slug = "acme") => {
    session.claims = email ? { userId: await app.userId(email), tenantId: await app.tenantId(slug) } : null;
  };
  const call = async (
    handler: unknown,
    method: string,
    params: Record<string, string> = {},
    body?: unknown,
    query = "",
  ) => {
    const res = await (handler as Handler)(
      new Request(`http://app/api/review-queues${query}`, {
        method,
        body: body === undefined ? undefined : JSON.stringify(body),
        headers: { "content-type": "application/json" },
      }),
      { params: Promise.resolve(params) },
    );
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
  const createQueue = async (body: Record<string, unknown>) => {
    const res = await call(queuesRoute.POST, "POST", {}, { name: `q-${crypto.randomUUID()}`, ...body });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.queue as { id: string; name: string };
  };
  const fill = (id: string) => call(fillRoute.POST, "POST", { id });
  const next = (id: string) => call(nextRoute.POST, "POST", { id });
  const done = (id: string, itemId: string, body: unknown = {}) =>
    call(doneRoute.POST, "POST", { id, itemId }, body);
  const skip = (id: string, itemId: string) => call(skipRoute.POST, "POST", { id, itemId });
  const items = async (id: string, query = "?status=open&limit=100") => {
    const res = await call(itemsRoute.GET, "GET", { id }, undefined, query);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.items as { id: string; turnId: string; reason: string; status: string }[];
  };

  type TurnRow = typeof sysAgentTurn.$inferInsert;
  /** Inserts a turn of Acme (by default a successful API call started now). */
  const turn = async (over: Partial<TurnRow> = {}) => {
    const id = over.id ?? crypto.randomUUID();
    await app.db.insert(sysAgentTurn).values({
      id,
      tenantId: acme,
      source: "api",
      requestedModel: "fast",
      servedModel: "fast",
      status: "success",
      startedAt: new Date(),
      ...over,
    });
    return id;
  };
  /** A turn id whose sample bucket is below (or at and above) `limit`. */
  const idInBucket = (below: boolean, limit: number) => {
    for (;;) {
      const id = crypto.randomUUID();
      if (sampleBucket(id) < limit === below) return id;
    }
  };
  const humanScore = (turnId: string, name: string, value: number, type: "boolean" | "numeric") =>
    app.db
      .insert(score)
      .values({ tenantId: acme, turnId, name, type, value, source: "human", userId: acmeAdmin });

  it("each rule fills its queue with the turns it matches, and a second fill adds nothing", async () => {
    const failed = await turn({ status: "failed" });
    const interrupted = await turn({ status: "interrupted" });
    await turn({ status: "stopped" });
    const blocked = await turn({ guardrail: "blocked" });
    const warned = await turn({ guardrail: "warned" });
    await turn({ guardrail: "passed" });
    const down = await turn();
    const up = await turn();
    await humanScore(down, "thumbs", 0, "boolean");
    await humanScore(up, "thumbs", 1, "boolean");
    const low = await turn();
    const high = await turn();
    await humanScore(low, "helpfulness", 0.2, "numeric");
    await humanScore(high, "helpfulness", 0.9, "numeric");
    const sampled = await turn({ id: idInBucket(true, 2_500), source: "api", requestedModel: "smart" });
    await turn({ id: idInBucket(false, 2_500), source: "api", requestedModel: "smart" });
    await turn({ id: idInBucket(true, 2_500), source: "drawer", requestedModel: "smart" });
    await turn({ id: idInBucket(true, 2_500), source: "api", requestedModel: "fast", status: "stopped" });
    // Globex's failed turn is never Acme's to review.
    await turn({ tenantId: globex, status: "failed" });

    const cases: [Record<string, unknown>, string[], string][] = [
      [{ type: "failed" }, [failed, interrupted], "failed"],
      [{ type: "guardrail" }, [blocked, warned], "guardrail"],
      [{ type: "thumbs_down" }, [down], "thumbs_down"],
      [{ type: "score_below", name: "helpfulness", threshold: 0.5 }, [low], "score_below"],
      [{ type: "sample", percent: 25, source: "api", alias: "smart" }, [sampled], "sample"],
    ];
    for (const [rule, expected, reason] of cases) {
      const queue = await createQueue({ rules: [rule] });
      const first = await fill(queue.id);
      expect(first, JSON.stringify(rule)).toEqual({ status: 200, body: { added: expected.length } });
      const listed = await items(queue.id);
      expect(listed.map((i) => i.turnId).sort(), reason).toEqual([...expected].sort());
      expect(new Set(listed.map((i) => i.reason))).toEqual(new Set([reason]));
      expect((await fill(queue.id)).body).toEqual({ added: 0 });
    }
    // Two rules matching one turn put it in once, under the first rule's reason.
    const both = await createQueue({ rules: [{ type: "guardrail" }, { type: "failed" }] });
    await turn({ status: "failed", guardrail: "redacted" });
    expect((await fill(both.id)).body).toEqual({ added: 5 });
    const reasons = (await items(both.id)).map((i) => i.reason);
    expect(reasons.filter((r) => r === "guardrail")).toHaveLength(3);
  });

  it("the look-back catches a turn written late behind the watermark; a thumbs down counts by when it was given", async () => {
    const queue = await createQueue({ rules: [{ type: "failed" }, { type: "thumbs_down" }] });
    expect((await fill(queue.id)).body).toEqual({ added: 0 });
    const [row] = await app.db.select().from(reviewQueue).where(eq(reviewQueue.id, queue.id));
    const watermark = row!.filledUntil!.getTime();
    // The batched recorder writes a turn that started before the last fill only now.
    const late = await turn({ status: "failed", startedAt: new Date(watermark - FILL_LOOK_BACK_MS / 2) });
    const tooLate = await turn({ status: "failed", startedAt: new Date(watermark - FILL_LOOK_BACK_MS * 3) });
    // A long turn that started well before the last fill but failed only after it counts by its end.
    const long = await turn({
      status: "failed",
      startedAt: new Date(watermark - FILL_LOOK_BACK_MS * 4),
      latencyMs: FILL_LOOK_BACK_MS * 4,
    });
    // A month-old turn gets a thumbs down today: the rule goes by the score's time, not the turn's.
    const old = await turn({ startedAt: new Date(Date.now() - 30 * 86_400_000) });
    await humanScore(old, "thumbs", 0, "boolean");
    expect((await fill(queue.id)).body).toEqual({ added: 3 });
    const turnIds = (await items(queue.id)).map((i) => i.turnId);
    expect(turnIds.sort()).toEqual([late, old, long].sort());
    expect(turnIds).not.toContain(tooLate);
  });

  it("the worker's pass fills every tenant's live queues, each with its own tenant's turns, and skips archived ones", async () => {
    const ours = await turn({ status: "failed" });
    const theirs = await turn({ tenantId: globex, status: "failed" });
    const acmeQueue = await createQueue({ rules: [{ type: "failed" }] });
    const archived = await createQueue({ rules: [{ type: "failed" }] });
    await call(archiveRoute.POST, "POST", { id: archived.id });
    await as("admin@globex.test", "globex");
    const globexQueue = await createQueue({ rules: [{ type: "failed" }] });
    const pass = await fillDueQueues(app.db);
    expect(pass).toEqual({ queues: 2, added: 2 });
    const byQueue = async (queueId: string) =>
      (await app.db.select().from(reviewItem).where(eq(reviewItem.queueId, queueId))).map((i) => [
        i.tenantId,
        i.turnId,
      ]);
    expect(await byQueue(acmeQueue.id)).toEqual([[acme, ours]]);
    expect(await byQueue(globexQueue.id)).toEqual([[globex, theirs]]);
    expect(await byQueue(archived.id)).toEqual([]);
    expect(await fillDueQueues(app.db)).toEqual({ queues: 2, added: 0 });
  });

  it("another tenant's queue and items are 404 on every route, and a malformed id is 404", async () => {
    await turn({ status: "failed" });
    const queue = await createQueue({ rules: [{ type: "failed" }], reviewers: "reviewers" });
    expect((await fill(queue.id)).body.added).toBe(1);
    const claim = await next(queue.id);
    const itemId = claim.body.item.id as string;
    await as("admin@globex.test", "globex");
    const id = queue.id;
    for (const res of [
      await call(queueRoute.GET, "GET", { id }),
      await call(queueRoute.PATCH, "PATCH", { id }, { name: "mine now" }),
      await call(archiveRoute.POST, "POST", { id }),
      await fill(id),
      await next(id),
      await call(statsRoute.GET, "GET", { id }),
      await call(itemsRoute.GET, "GET", { id }),
      await done(id, itemId),
      await skip(id, itemId),
      await call(datasetRoute.POST, "POST", { id, itemId }, {}),
    ])
      expect(res.status, JSON.stringify(res.body)).toBe(404);
    expect((await call(queuesRoute.GET, "GET")).body.queues).toEqual([]);
    await as("admin@acme.test");
    expect((await call(queueRoute.GET, "GET", { id: "not-a-uuid" })).status).toBe(404);
    expect((await done(id, "not-a-uuid")).status).toBe(404);
    // Another queue's item id through this queue is 404 too.
    const other = await createQueue({ rules: [{ type: "failed" }] });
    expect((await done(other.id, itemId)).status).toBe(404);
    await as(null);
    expect((await call(queuesRoute.GET, "GET")).status).toBe(401);
    expect((await next(id)).status).toBe(401);
  });

  it("many reviewers asking at once never get the same item, and every item is done exactly once", async () => {
    for (let i = 0; i < 20; i++)
      await turn({ requestedModel: "rush", startedAt: new Date(Date.now() - i * 1000) });
    const queue = await createQueue({
      rules: [{ type: "sample", percent: 100, alias: "rush" }],
      reviewers: "reviewers",
    });
    expect((await fill(queue.id)).body).toEqual({ added: 20 });
    const [row] = await app.db.select().from(reviewQueue).where(eq(reviewQueue.id, queue.id));
    // Each reviewer on a connection of its own (PostgreSQL): the claims really race.
    const pool = await app.secondPool(reviewers.length * 2);
    const handedTo = new Map<string, Set<string>>();
    const work = async (userId: string) => {
      const who = { tenantId: acme, userId, admin: false };
      for (let round = 0; round < 40; round++) {
        // Two asks at once by the same reviewer too: the second may claim another item, never someone else's.
        const answers = await Promise.all([nextItem(pool, who, row!.id), nextItem(pool, who, row!.id)]);
        const got = answers.map((a) => a.item).filter((i) => i !== null);
        if (!got.length) return;
        for (const item of got) handedTo.set(item.id, (handedTo.get(item.id) ?? new Set()).add(userId));
        for (const id of new Set(got.map((i) => i.id)))
          await completeItem(pool, who, row!.id, id, { scores: [] });
      }
    };
    await Promise.all(reviewers.map(work));
    expect(handedTo.size).toBe(20);
    for (const [item, who] of handedTo) expect(who.size, `item ${item} went to ${[...who]}`).toBe(1);
    const rows = await app.db.select().from(reviewItem).where(eq(reviewItem.queueId, queue.id));
    expect(rows).toHaveLength(20);
    for (const r of rows) {
      expect(r.status).toBe("done");
      expect(handedTo.get(r.id)).toEqual(new Set([r.doneBy]));
    }
  });

  it("a reviewer gets their own item again; a lapsed lease hands it to another, and the first may no longer close it", async () => {
    const first = await turn({ status: "failed", startedAt: new Date(Date.now() - 2000) });
    await turn({ status: "failed" });
    const queue = await createQueue({ rules: [{ type: "failed" }], leaseSeconds: 60 });
    const a = await next(queue.id);
    expect(a.status).toBe(200);
    expect(a.body.item).toMatchObject({ turnId: first, reason: "failed" });
    expect(a.body.open).toBe(2);
    const leaseMs = Date.parse(a.body.item.leaseUntil) - Date.now();
    expect(leaseMs).toBeGreaterThan(50_000);
    expect(leaseMs).toBeLessThan(70_000);
    expect((await next(queue.id)).body.item.id).toBe(a.body.item.id);
    // The admin's lease runs out: the member reviewer is given the item.
    await app.db.update(membership).set({ reviewer: true }).where(eq(membership.userId, member));
    await app.db.update(reviewQueue).set({ reviewers: "reviewers" }).where(eq(reviewQueue.id, queue.id));
    await app.db
      .update(reviewItem)
      .set({ leaseUntil: new Date(Date.now() - 1000) })
      .where(eq(reviewItem.id, a.body.item.id));
    await as("member@acme.test");
    const b = await next(queue.id);
    expect(b.body.item.id).toBe(a.body.item.id);
    await as("admin@acme.test");
    const lost = await done(queue.id, a.body.item.id);
    expect(lost.status).toBe(409);
    expect(lost.body.error.reason).toBe("review_lease_lost");
    expect((await skip(queue.id, a.body.item.id)).body.error.reason).toBe("review_lease_lost");
    // The admin is handed the other item instead.
    expect((await next(queue.id)).body.item.id).not.toBe(a.body.item.id);
  });

  it("a skipped item is not offered to the skipper again, but is to others", async () => {
    const older = await turn({ status: "failed", startedAt: new Date(Date.now() - 2000) });
    const newer = await turn({ status: "failed" });
    const queue = await createQueue({ rules: [{ type: "failed" }] });
    const a = await next(queue.id);
    expect(a.body.item.turnId).toBe(older);
    const skipped = await skip(queue.id, a.body.item.id);
    expect(skipped.status).toBe(200);
    expect(skipped.body.item).toMatchObject({ claimedBy: null, leaseUntil: null, skippedBy: [acmeAdmin] });
    expect((await next(queue.id)).body.item.turnId).toBe(newer);
    const other = await nextItem(app.db, { tenantId: acme, userId: reviewers[0]!, admin: true }, queue.id);
    expect(other.item?.turnId).toBe(older);
    // Once the admin finishes the newer item there is nothing left for them (the skipped one is another's).
    const mine = await next(queue.id);
    expect((await done(queue.id, mine.body.item.id)).status).toBe(200);
    expect((await next(queue.id)).body).toEqual({ item: null, open: 1 });
  });

  it("done writes the reviewer's scores, validated by the tenant's configs, and closes the item once", async () => {
    await app.db
      .insert(scoreConfig)
      .values({ tenantId: acme, name: "helpfulness", type: "numeric", min: 0, max: 1 });
    const turnId = await turn({ status: "failed" });
    const queue = await createQueue({ rules: [{ type: "failed" }], scoreNames: ["helpfulness", "thumbs"] });
    const { body } = await next(queue.id);
    const itemId = body.item.id as string;
    const tooHigh = await done(queue.id, itemId, { scores: [{ name: "helpfulness", value: 5 }] });
    expect(tooHigh.status).toBe(422);
    expect(Object.keys(tooHigh.body.error.fields)).toEqual(["scores.0.value"]);
    const notAsked = await done(queue.id, itemId, { scores: [{ name: "tone", value: 1 }] });
    expect(notAsked.status).toBe(422);
    expect(Object.keys(notAsked.body.error.fields)).toEqual(["scores.0.name"]);
    expect((await done(queue.id, itemId, { scores: "many" })).status).toBe(422);
    expect(await app.db.select().from(score).where(eq(score.turnId, turnId))).toEqual([]);
    // Another reviewer cannot close the admin's item.
    await app.db.update(membership).set({ reviewer: true }).where(eq(membership.userId, member));
    await app.db.update(reviewQueue).set({ reviewers: "reviewers" }).where(eq(reviewQueue.id, queue.id));
    await as("member@acme.test");
    const notMine = await done(queue.id, itemId, {});
    expect(notMine.status).toBe(409);
    expect(notMine.body.error.reason).toBe("review_lease_lost");
    await as("admin@acme.test");
    const ok = await done(queue.id, itemId, {
      scores: [
        { name: "helpfulness", value: 0.25 },
        { name: "thumbs", value: false, comment: "wrong tool" },
      ],
      comment: "answered the wrong question",
    });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body.item).toMatchObject({ status: "done", doneBy: acmeAdmin });
    expect(ok.body.scoreIds).toHaveLength(2);
    const scores = await app.db.select().from(score).where(eq(score.turnId, turnId));
    expect(
      scores
        .map((s) => [s.name, s.value, s.source, s.userId, s.comment])
        .sort((x, y) => String(x[0]).localeCompare(String(y[0]))),
    ).toEqual([
      ["helpfulness", 0.25, "human", acmeAdmin, "answered the wrong question"],
      ["thumbs", 0, "human", acmeAdmin, "wrong tool"],
    ]);
    const again = await done(queue.id, itemId, {});
    expect(again.status).toBe(409);
    expect(again.body.error.reason).toBe("review_item_done");
  });

  it("adds the item's turn to the queue's dataset or a named one; another tenant's dataset is 404", async () => {
    const turnId = await turn({ status: "failed" });
    await app.db.insert(sysAgentAudit).values({
      tenantId: acme,
      turnId,
      seq: 1,
      type: "request",
      payload: { message: "user: what is 2+2?" },
    });
    const [ours, theirs] = await app.db
      .insert(evalDataset)
      .values([
        { tenantId: acme, name: `reviewed-${crypto.randomUUID()}`, createdBy: acmeAdmin },
        { tenantId: globex, name: `theirs-${crypto.randomUUID()}`, createdBy: acmeAdmin },
      ])
      .returning();
    const queue = await createQueue({ rules: [{ type: "failed" }] });
    const itemId = (await next(queue.id)).body.item.id as string;
    const none = await call(datasetRoute.POST, "POST", { id: queue.id, itemId }, {});
    expect(none.status).toBe(422);
    expect(Object.keys(none.body.error.fields)).toEqual(["datasetId"]);
    const foreign = await call(
      datasetRoute.POST,
      "POST",
      { id: queue.id, itemId },
      { datasetId: theirs!.id },
    );
    expect(foreign.status).toBe(404);
    expect((await call(queueRoute.PATCH, "PATCH", { id: queue.id }, { datasetId: ours!.id })).status).toBe(
      200,
    );
    const added = await call(datasetRoute.POST, "POST", { id: queue.id, itemId }, {});
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    expect(added.body.datasetId).toBe(ours!.id);
    const [copied] = await app.db
      .select()
      .from(evalDatasetItem)
      .where(eq(evalDatasetItem.id, added.body.datasetItemId));
    expect(copied).toMatchObject({ tenantId: acme, datasetId: ours!.id, sourceTurnId: turnId });
    expect(copied!.input).toEqual({ messages: [{ role: "user", content: "what is 2+2?" }] });
  });

  it("the reviewer right: a member without it is refused, a reviewer works the reviewers' queues only", async () => {
    await turn({ status: "failed" });
    const admins = await createQueue({ rules: [{ type: "failed" }] });
    const open = await createQueue({ rules: [{ type: "failed" }], reviewers: "reviewers" });
    await as("member@acme.test");
    expect((await call(queuesRoute.GET, "GET")).status).toBe(403);
    expect((await next(open.id)).status).toBe(403);
    expect((await call(statsRoute.GET, "GET", { id: open.id })).status).toBe(403);
    expect((await loadUserContext(app.db, member, acme))?.tenant?.reviewer).toBe(false);
    await as("admin@acme.test");
    const granted = await call(memberRoute.PATCH, "PATCH", { userId: member }, { reviewer: true });
    expect(granted.status).toBe(200);
    expect(granted.body.member).toMatchObject({ email: "member@acme.test", reviewer: true });
    const [change] = await app.db
      .select()
      .from(adminChange)
      .where(and(eq(adminChange.action, "member.reviewer_set"), eq(adminChange.objectId, member)));
    expect(change).toMatchObject({ before: { reviewer: false }, after: { reviewer: true } });
    // The session knows it from the member's next request (the top bar and pages read it there).
    expect((await loadUserContext(app.db, member, acme))?.tenant?.reviewer).toBe(true);
    await as("member@acme.test");
    const listed = await call(queuesRoute.GET, "GET");
    expect(listed.body.queues.map((q: { id: string }) => q.id)).toEqual([open.id]);
    expect((await call(queueRoute.GET, "GET", { id: admins.id })).status).toBe(404);
    expect((await next(admins.id)).status).toBe(404);
    const mine = await next(open.id);
    expect(mine.status).toBe(200);
    expect(mine.body.item).not.toBeNull();
    expect((await done(open.id, mine.body.item.id)).status).toBe(200);
    // Managing queues stays the admins'.
    expect(
      (await call(queuesRoute.POST, "POST", {}, { name: "x", rules: [{ type: "failed" }] })).status,
    ).toBe(403);
    expect((await fill(open.id)).status).toBe(403);
    expect((await call(itemsRoute.GET, "GET", { id: open.id })).status).toBe(403);
    expect((await call(archiveRoute.POST, "POST", { id: open.id })).status).toBe(403);
  });

  it("creating and changing a queue checks its name, scores and dataset, and leaves admin-change rows", async () => {
    const queue = await createQueue({ name: "triage", rules: [{ type: "failed" }] });
    const taken = await call(queuesRoute.POST, "POST", {}, { name: "triage", rules: [{ type: "failed" }] });
    expect(taken.status).toBe(409);
    expect(Object.keys(taken.body.error.fields)).toEqual(["name"]);
    const unknown = await call(
      queuesRoute.POST,
      "POST",
      {},
      { name: "u", rules: [{ type: "failed" }], scoreNames: ["nope"] },
    );
    expect(unknown.status).toBe(422);
    expect(Object.keys(unknown.body.error.fields)).toEqual(["scoreNames"]);
    const noRules = await call(queuesRoute.POST, "POST", {}, { name: "u", rules: [] });
    expect(noRules.status).toBe(422);
    expect(Object.keys(noRules.body.error.fields)).toEqual(["rules"]);
    const badRule = await call(
      queuesRoute.POST,
      "POST",
      {},
      { name: "u", rules: [{ type: "sample", percent: 0 }] },
    );
    expect(Object.keys(badRule.body.error.fields)).toEqual(["rules.0.percent"]);
    const [theirs] = await app.db
      .insert(evalDataset)
      .values({ tenantId: globex, name: `g-${crypto.randomUUID()}`, createdBy: acmeAdmin })
      .returning();
    const foreign = await call(
      queuesRoute.POST,
      "POST",
      {},
      {
        name: "u",
        rules: [{ type: "failed" }],
        datasetId: theirs!.id,
      },
    );
    expect(foreign.status).toBe(422);
    expect(Object.keys(foreign.body.error.fields)).toEqual(["datasetId"]);
    const other = await createQueue({ name: "second", rules: [{ type: "failed" }] });
    const rename = await call(queueRoute.PATCH, "PATCH", { id: other.id }, { name: "triage" });
    expect(rename.status).toBe(409);
    const patched = await call(
      queueRoute.PATCH,
      "PATCH",
      { id: queue.id },
      { leaseSeconds: 120, scoreNames: ["thumbs"] },
    );
    expect(patched.body.queue).toMatchObject({ leaseSeconds: 120, scoreNames: ["thumbs"] });
    const archived = await call(archiveRoute.POST, "POST", { id: queue.id });
    expect(archived.body.queue.archivedAt).not.toBeNull();
    expect((await call(queuesRoute.GET, "GET")).body.queues.map((q: { id: string }) => q.id)).toEqual([
      other.id,
    ]);
    expect((await next(queue.id)).status).toBe(409);
    const actions = (await app.db.select().from(adminChange).where(eq(adminChange.objectId, queue.id))).map(
      (c) => c.action,
    );
    expect(actions.sort()).toEqual(["review_queue.archived", "review_queue.created", "review_queue.updated"]);
  });

  it("stats count open, claimed and done items and each reviewer's throughput; items page by keyset", async () => {
    for (let i = 0; i < 5; i++) await turn({ status: "failed", startedAt: new Date(Date.now() - i * 1000) });
    const queue = await createQueue({ rules: [{ type: "failed" }] });
    const first = await next(queue.id);
    await done(queue.id, first.body.item.id);
    const second = await next(queue.id);
    await done(queue.id, second.body.item.id);
    await next(queue.id);
    const stats = await call(statsRoute.GET, "GET", { id: queue.id });
    expect(stats.status).toBe(200);
    expect(stats.body).toMatchObject({ open: 3, claimed: 1, done: 2, total: 5 });
    expect(stats.body.reviewers).toEqual([
      { userId: acmeAdmin, email: "admin@acme.test", doneToday: 2, done7d: 2 },
    ]);
    expect(stats.body.donePerDay).toHaveLength(14);
    expect(stats.body.donePerDay.at(-1)).toEqual({ day: new Date().toISOString().slice(0, 10), count: 2 });
    const listed = (await call(queuesRoute.GET, "GET")).body.queues[0];
    expect(listed.counts).toEqual({ open: 3, claimed: 1, done: 2 });
    // Open items two at a time: every one once, in the order next offers them.
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 5; page++) {
      const res = await call(
        itemsRoute.GET,
        "GET",
        { id: queue.id },
        undefined,
        `?status=open&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
      );
      seen.push(...res.body.items.map((i: { id: string }) => i.id));
      cursor = res.body.nextCursor;
      if (!cursor) break;
    }
    expect(seen).toHaveLength(3);
    expect(new Set(seen).size).toBe(3);
    const doneItems = await items(queue.id, "?status=done");
    expect(doneItems.map((i) => i.id)).toEqual([second.body.item.id, first.body.item.id]);
    const bad = await call(itemsRoute.GET, "GET", { id: queue.id }, undefined, "?cursor=garbage");
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.error.fields)).toEqual(["cursor"]);
    expect((await call(itemsRoute.GET, "GET", { id: queue.id }, undefined, "?limit=500")).status).toBe(422);
  });
});
