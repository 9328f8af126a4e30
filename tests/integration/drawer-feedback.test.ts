import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { score, sysAgentTurn } from "@/db/schema";
import { FEEDBACK_SCORE } from "@/features/scores/contracts";
import { useSeededAppDatabase } from "../helpers/app-db";
import { testDbKinds } from "../helpers/db";
import { session } from "../helpers/session";

vi.mock("@/lib/auth/session", () => import("../helpers/session"));

const feedback = await import("@/app/api/agent/turns/[id]/feedback/route");
const turnRoute = await import("@/app/api/agent/turns/[id]/route");

const params = (id: string) => ({ params: Promise.resolve({ id }) });
const put = (id: string, body: unknown) =>
  feedback.PUT(
    new Request("http://app/x", {
      method: "PUT",
      body: typeof body === "string" ? body : JSON.stringify(body),
      headers: { "content-type": "application/json" },
    }),
    params(id),
  );
const remove = (id: string) => feedback.DELETE(new Request("http://app/x", { method: "DELETE" }), params(id));
const getTurn = (id: string) => turnRoute.GET(new Request("http://app/x"), params(id));

describe.each(testDbKinds)("the drawer's feedback on %s", (kind) => {
  let app: Awaited<ReturnType<typeof useSeededAppDatabase>>;
  let acme: string;
  let member: string;
  let admin: string;
  const as = async (email: string, slug: string) => {
    session.claims = { userId: await app.userId(email), tenantId: await app.tenantId(slug) };
  };
  /** A finished drawer turn of this user in this tenant, as the ledger holds it. */
  const turnOf = async (userId: string, tenantId: string) => {
    const id = crypto.randomUUID();
    await app.db.insert(sysAgentTurn).values({
      id,
      tenantId,
      userId,
      source: "drawer",
      requestedModel: "offline-demo",
      status: "success",
      startedAt: new Date(),
    });
    return id;
  };
  const rowsOn = (turnId: string) =>
    app.db
      .select()
      .from(score)
      .where(and(eq(score.turnId, turnId), eq(score.name, FEEDBACK_SCORE)));

  beforeAll(async () => {
    app = await useSeededAppDatabase(kind);
    acme = await app.tenantId("acme");
    member = await app.userId("member@acme.test");
    admin = await app.userId("admin@acme.test");
  });
  afterAll(async () => {
    await app.close();
  });
  beforeEach(() => {
    session.claims = null;
  });

  it("votes, changes the vote, comments and takes it back: one row per user and turn", async () => {
    const turnId = await turnOf(member, acme);
    await as("member@acme.test", "acme");

    const down = await put(turnId, { value: "down", comment: "  It named the wrong refund window.  " });
    expect(down.status).toBe(200);
    const first = (await down.json()).feedback;
    expect(first).toMatchObject({ value: "down", comment: "It named the wrong refund window." });
    expect(typeof first.updatedAt).toBe("string");

    // Changing the vote keeps the comment unless one is sent.
    const up = await (await put(turnId, { value: "up" })).json();
    expect(up.feedback).toMatchObject({ value: "up", comment: "It named the wrong refund window." });
    const rows = await rowsOn(turnId);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      tenantId: acme,
      userId: member,
      source: "human",
      type: "boolean",
      value: 1,
      comment: "It named the wrong refund window.",
    });

    // A new comment replaces the old one; an empty one removes it.
    expect((await (await put(turnId, { value: "up", comment: "Better now" })).json()).feedback.comment).toBe(
      "Better now",
    );
    expect((await (await put(turnId, { value: "up", comment: "" })).json()).feedback.comment).toBeNull();
    expect(await rowsOn(turnId)).toHaveLength(1);

    // The turn's ledger row carries the user's own vote, so the drawer shows it after a reload.
    const got = await (await getTurn(turnId)).json();
    expect(got.turn.id).toBe(turnId);
    expect(got.feedback).toMatchObject({ value: "up", comment: null });

    const taken = await remove(turnId);
    expect(taken.status).toBe(200);
    expect(await taken.json()).toEqual({ feedback: null });
    expect(await rowsOn(turnId)).toHaveLength(0);
    expect((await (await getTurn(turnId)).json()).feedback).toBeNull();
    // Taking back a vote that is not there is fine.
    expect((await remove(turnId)).status).toBe(200);
  });

  it("masks secrets in the comment as the audit does", async () => {
    const turnId = await turnOf(member, acme);
    await as("member@acme.test", "acme");
    const secret = "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD";
    const body = await (await put(turnId, { value: "down", comment: `it printed ${secret}` })).json();
    expect(body.feedback.comment).not.toContain(secret);
    const [row] = await rowsOn(turnId);
    expect(row!.comment).not.toContain(secret);
  });

  it("keeps each person's vote apart and never shows another's", async () => {
    const turnId = await turnOf(member, acme);
    await as("member@acme.test", "acme");
    await put(turnId, { value: "down" });
    // The tenant admin may read the member's turn on the ledger, but not vote on it here, and sees no vote of theirs.
    await as("admin@acme.test", "acme");
    expect((await put(turnId, { value: "up" })).status).toBe(404);
    expect((await remove(turnId)).status).toBe(404);
    const seen = await (await getTurn(turnId)).json();
    expect(seen.turn.id).toBe(turnId);
    expect(seen.feedback).toBeNull();
    const rows = await rowsOn(turnId);
    expect(rows.map((r) => [r.userId, r.value])).toEqual([[member, 0]]);
    expect(admin).not.toBe(member);
  });

  it("answers 404 to another user's turn, another tenant's, a missing one and a malformed id", async () => {
    const others = await turnOf(admin, acme);
    await as("member@acme.test", "acme");
    const other = await put(others, { value: "up" });
    expect(other.status).toBe(404);
    expect((await other.json()).error.code).toBe("not_found");
    expect((await put(crypto.randomUUID(), { value: "up" })).status).toBe(404);
    expect((await put("not-a-turn", { value: "up" })).status).toBe(404);
    expect((await remove("not-a-turn")).status).toBe(404);

    const mine = await turnOf(member, acme);
    await as("multi@tollgate.test", "globex");
    const crossTenant = await put(mine, { value: "down" });
    expect(crossTenant.status).toBe(404);
    expect((await remove(mine)).status).toBe(404);
    // The same user's turn in another tenant is not reachable from this one either.
    const globexTurn = await turnOf(await app.userId("multi@tollgate.test"), await app.tenantId("globex"));
    await as("multi@tollgate.test", "acme");
    expect((await put(globexTurn, { value: "up" })).status).toBe(404);
    expect(await rowsOn(mine)).toHaveLength(0);
    expect(await rowsOn(globexTurn)).toHaveLength(0);
  });

  it("answers 422 naming the field on a bad body, 400 on broken JSON, 401 signed out", async () => {
    const turnId = await turnOf(member, acme);
    await as("member@acme.test", "acme");
    const bad = await put(turnId, { value: "sideways" });
    expect(bad.status).toBe(422);
    const body = await bad.json();
    expect(body.error.fields.value).toEqual(['value is "up" or "down"']);
    expect((await (await put(turnId, { value: true })).json()).error.fields.value).toBeDefined();
    const long = await put(turnId, { value: "up", comment: "x".repeat(2_001) });
    expect(long.status).toBe(422);
    expect((await long.json()).error.fields.comment).toEqual(["a comment is at most 2,000 characters"]);
    const extra = await put(turnId, { value: "up", stars: 5 });
    expect(extra.status).toBe(422);
    expect((await put(turnId, "{not json")).status).toBe(400);
    expect(await rowsOn(turnId)).toHaveLength(0);

    session.claims = null;
    expect((await put(turnId, { value: "up" })).status).toBe(401);
    expect((await remove(turnId)).status).toBe(401);
  });
});
