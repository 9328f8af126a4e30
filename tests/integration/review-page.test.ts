// What the focused review page reads for one item, on each database: the queue, the item, the turn's replay and
// the score configs, in the reviewer's tenant only. Another tenant's queue, an item of another queue, an admins'
// queue for a reviewer and a malformed id are all 404 (the ids say nothing); a turn gone from the ledger has no
// replay rather than failing the page.
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reviewItem, reviewQueue, scoreConfig, sysAgentTurn } from "@/db/schema";
import { reviewPage } from "@/features/reviews/server/review-page";
import { useSeededAppDatabase } from "../helpers/app-db";
import { testDbKinds } from "../helpers/db";

describe.each(testDbKinds)("the review page's reads on %s", (kind) => {
  let app: Awaited<ReturnType<typeof useSeededAppDatabase>>;
  let acme: string;
  let globex: string;
  let admin: string;

  beforeAll(async () => {
    app = await useSeededAppDatabase(kind);
    acme = await app.tenantId("acme");
    globex = await app.tenantId("globex");
    admin = await app.userId("admin@acme.test");
  });
  afterAll(async () => {
    await app.close();
  });

  const queue = async (tenantId: string, reviewers: "admins" | "reviewers" = "reviewers") => {
    const [row] = await app.db
      .insert(reviewQueue)
      .values({
        tenantId,
        name: `q-${crypto.randomUUID()}`,
        rules: [{ type: "failed" }],
        reviewers,
        scoreNames: ["verdict", "thumbs"],
        createdBy: admin,
      })
      .returning();
    return row!;
  };
  const turn = async (tenantId: string) => {
    const id = crypto.randomUUID();
    await app.db.insert(sysAgentTurn).values({
      id,
      tenantId,
      source: "api",
      requestedModel: "fast",
      servedModel: "fast",
      status: "failed",
      startedAt: new Date(),
    });
    return id;
  };
  const item = async (tenantId: string, queueId: string, turnId: string) => {
    const [row] = await app.db
      .insert(reviewItem)
      .values({ tenantId, queueId, turnId, reason: "failed" })
      .returning();
    return row!;
  };
  const reviewer = (tenantId: string, isAdmin = false) => ({ tenantId, userId: admin, admin: isAdmin });

  it("reads the item with its turn's replay, the queue's counts and the tenant's score configs", async () => {
    const q = await queue(acme);
    const turnId = await turn(acme);
    const it1 = await item(acme, q.id, turnId);
    await app.db
      .insert(scoreConfig)
      .values({ tenantId: acme, name: `verdict-${q.id}`, type: "categorical", categories: ["good", "bad"] });
    const page = await reviewPage(app.db, reviewer(acme), q.id, it1.id);
    expect(page.queue).toMatchObject({
      id: q.id,
      scoreNames: ["verdict", "thumbs"],
      counts: { open: 1, done: 0 },
    });
    expect(page.item).toMatchObject({ id: it1.id, turnId, reason: "failed", status: "open" });
    expect(page.replay?.turn.id).toBe(turnId);
    expect(page.configs.map((c) => c.name)).toContain(`verdict-${q.id}`);
  });

  it("answers 404 for another tenant's queue or item, another queue's item, and a reviewer on an admins' queue", async () => {
    const mine = await queue(acme);
    const other = await queue(acme);
    const theirs = await queue(globex);
    const mineItem = await item(acme, mine.id, await turn(acme));
    const otherItem = await item(acme, other.id, await turn(acme));
    const theirItem = await item(globex, theirs.id, await turn(globex));
    const notFound = { code: "not_found" };
    // Globex's queue and item, asked from Acme.
    await expect(reviewPage(app.db, reviewer(acme, true), theirs.id, theirItem.id)).rejects.toMatchObject(
      notFound,
    );
    // Acme's item under another of Acme's queues.
    await expect(reviewPage(app.db, reviewer(acme, true), mine.id, otherItem.id)).rejects.toMatchObject(
      notFound,
    );
    // Acme's item asked from Globex, and malformed ids.
    await expect(reviewPage(app.db, reviewer(globex, true), mine.id, mineItem.id)).rejects.toMatchObject(
      notFound,
    );
    await expect(reviewPage(app.db, reviewer(acme, true), mine.id, "nope")).rejects.toMatchObject(notFound);
    await expect(reviewPage(app.db, reviewer(acme, true), "nope", mineItem.id)).rejects.toMatchObject(
      notFound,
    );
    // An admins' queue is not a reviewer's to open; an admin opens it.
    const admins = await queue(acme, "admins");
    const adminsItem = await item(acme, admins.id, await turn(acme));
    await expect(reviewPage(app.db, reviewer(acme), admins.id, adminsItem.id)).rejects.toMatchObject(
      notFound,
    );
    expect((await reviewPage(app.db, reviewer(acme, true), admins.id, adminsItem.id)).item.id).toBe(
      adminsItem.id,
    );
  });

  it("shows an item whose turn left the ledger without a replay", async () => {
    const q = await queue(acme);
    const turnId = await turn(acme);
    const gone = await item(acme, q.id, turnId);
    await app.db.delete(sysAgentTurn).where(eq(sysAgentTurn.id, turnId));
    const page = await reviewPage(app.db, reviewer(acme), q.id, gone.id);
    expect(page.replay).toBeNull();
    expect(page.item.turnId).toBe(turnId);
  });
});
