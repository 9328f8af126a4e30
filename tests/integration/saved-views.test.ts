// Saved views on each database: a person's own views and the views a tenant's admins share, through
// GET/POST /api/views and PATCH/DELETE /api/views/{id}; defaults (the person's wins over the tenant's, one of
// each), the page's own checks on a view's state, and no view of another person or tenant reached.
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { adminChange, savedView } from "@/db/schema";
import { useSeededAppDatabase } from "../helpers/app-db";
import { testDbKinds } from "../helpers/db";
import { session } from "../helpers/session";

vi.mock("@/lib/auth/session", () => import("../helpers/session"));

const listRoute = await import("@/app/api/views/route");
const oneRoute = await import("@/app/api/views/[id]/route");

type Handler = (req: Request, segment: { params: Promise<Record<string, string>> }) => Promise<Response>;
type View = { id: string; name: string; shared: boolean; isDefault: boolean; mine: boolean; state: object };
const LEDGER = "agent-turns";
const STATE = {
  filters: { feedback: "down", "startedAt.from": "2026-03-01T00:00:00.000Z" },
  segment: "failed",
  sort: { field: "cost", dir: "desc" },
  columns: ["startedAt", "cost", "status"],
  hidden: ["tools"],
  pinned: ["startedAt"],
};

describe.each(testDbKinds)("saved views on %s", (kind) => {
  let app: Awaited<ReturnType<typeof useSeededAppDatabase>>;

  beforeAll(async () => {
    app = await useSeededAppDatabase(kind);
  });
  afterAll(async () => {
    await app.close();
  });
  beforeEach(async () => {
    await app.db.delete(savedView);
    await as("admin@globex.test", "globex");
  });

  const as = async (email: string, slug: string | null) => {
    session.claims = { userId: await app.userId(email), tenantId: slug ? await app.tenantId(slug) : null };
  };
  const call = async (handler: Handler, method: string, body?: unknown, query = "", id?: string) => {
    const res = await handler(
      new Request(`http://app/api/views${id ? `/${id}` : ""}${query}`, {
        method,
        body: body === undefined ? undefined : JSON.stringify(body),
        headers: { "content-type": "application/json" },
      }),
      { params: Promise.resolve<Record<string, string>>(id ? { id } : {}) },
    );
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
  const list = (page = LEDGER) => call(listRoute.GET as Handler, "GET", undefined, `?page=${page}`);
  const create = (body: Record<string, unknown>) =>
    call(listRoute.POST as Handler, "POST", { page: LEDGER, state: {}, ...body });
  const patch = (id: string, body: unknown) => call(oneRoute.PATCH as Handler, "PATCH", body, "", id);
  const remove = (id: string) => call(oneRoute.DELETE as Handler, "DELETE", undefined, "", id);
  const names = async () => ((await list()).body.views as View[]).map((v) => v.name).sort();
  const saved = async (body: Record<string, unknown>) => {
    const res = await create(body);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.view as View;
  };

  it("keeps a private view to its owner and shows a shared one to the tenant's people only", async () => {
    const mine = await saved({ name: "Mine", state: STATE });
    expect(mine.state).toEqual(STATE);
    await saved({ name: "Team", shared: true });
    expect(await names()).toEqual(["Mine", "Team"]);

    // Another admin of Globex (multi) sees the shared view, not the private one, and may not change the latter.
    await as("multi@tollgate.test", "globex");
    const seen = (await list()).body.views as View[];
    expect(seen.map((v) => [v.name, v.shared, v.mine])).toEqual([["Team", true, false]]);
    expect((await patch(mine.id, { name: "Taken" })).status).toBe(404);
    expect((await remove(mine.id)).status).toBe(404);

    // Acme's admin sees neither, and reaches neither by id: 404, never 403.
    await as("admin@acme.test", "acme");
    expect(await names()).toEqual([]);
    expect((await patch(seen[0]!.id, { name: "Mine now" })).status).toBe(404);
    expect((await remove(seen[0]!.id)).status).toBe(404);
    expect((await app.db.select().from(savedView)).map((v) => v.name).sort()).toEqual(["Mine", "Team"]);
  });

  it("lets only tenant admins share, change or delete shared views, and logs their changes", async () => {
    await as("member@acme.test", "acme");
    // A member opens the prompts page (its roles name members), not the ledger (admins only).
    expect((await create({ page: LEDGER, name: "Ledger" })).status).toBe(403);
    expect((await list(LEDGER)).status).toBe(403);
    expect((await create({ page: "no-such-page", name: "X" })).status).toBe(404);
    const refused = await create({ page: "agent-prompts", name: "Shared", shared: true });
    expect(refused.status).toBe(403);
    const own = (await create({ page: "agent-prompts", name: "Own" })).body.view as View;
    expect((await patch(own.id, { shared: true })).status).toBe(403);
    expect((await patch(own.id, { name: "Renamed" })).status).toBe(200);

    await as("admin@acme.test", "acme");
    const team = (await create({ page: "agent-prompts", name: "Team", shared: true })).body.view as View;
    await as("member@acme.test", "acme");
    expect((await list("agent-prompts")).body.views.map((v: View) => v.name)).toEqual(["Team", "Renamed"]);
    expect((await patch(team.id, { name: "Hijacked" })).status).toBe(403);
    expect((await remove(team.id)).status).toBe(403);

    await as("admin@acme.test", "acme");
    expect((await patch(team.id, { name: "Team views" })).status).toBe(200);
    expect((await remove(team.id)).status).toBe(204);
    const acme = await app.tenantId("acme");
    const log = await app.db.select().from(adminChange).where(eq(adminChange.tenantId, acme));
    const actions = log.filter((c) => c.objectId === team.id).map((c) => c.action);
    expect(actions.sort()).toEqual(["saved_view.created", "saved_view.deleted", "saved_view.updated"]);
    // A private view's changes are the person's own business: not in the admin log.
    expect(log.some((c) => c.objectId === own.id)).toBe(false);
  });

  it("opens with the person's own default over the tenant's, and keeps one of each", async () => {
    const tenantA = await saved({ name: "Tenant A", shared: true, isDefault: true });
    expect((await list()).body.defaultId).toBe(tenantA.id);
    const tenantB = await saved({ name: "Tenant B", shared: true, isDefault: true });
    const defaults = async () =>
      ((await list()).body.views as View[])
        .filter((v) => v.isDefault)
        .map((v) => v.name)
        .sort();
    expect(await defaults()).toEqual(["Tenant B"]);

    await as("multi@tollgate.test", "globex");
    expect((await list()).body.defaultId).toBe(tenantB.id);
    const own = await saved({ name: "Own", isDefault: true });
    expect((await list()).body.defaultId).toBe(own.id);
    const own2 = await saved({ name: "Own 2" });
    expect((await patch(own2.id, { isDefault: true })).body.view.isDefault).toBe(true);
    expect(await defaults()).toEqual(["Own 2", "Tenant B"]);
    expect((await list()).body.defaultId).toBe(own2.id);
    expect((await patch(own2.id, { isDefault: false })).status).toBe(200);
    expect((await list()).body.defaultId).toBe(tenantB.id);

    // The tenant's default stays the admin's choice: the other admin sees theirs, not multi's.
    await as("admin@globex.test", "globex");
    expect((await list()).body.defaultId).toBe(tenantB.id);
    // Sharing a private default makes it the tenant's, clearing the tenant's previous one.
    const mine = await saved({ name: "Mine", isDefault: true });
    expect((await patch(mine.id, { shared: true })).status).toBe(200);
    expect(await defaults()).toEqual(["Mine"]);
    expect((await list()).body.defaultId).toBe(mine.id);
    expect(tenantA.id).not.toBe(mine.id);
  });

  it("refuses a state the page does not know, naming the field", async () => {
    const fields = async (state: unknown, page = LEDGER) => {
      const res = await create({ page, name: "Bad", state });
      expect(res.status, JSON.stringify(res.body)).toBe(422);
      return Object.keys(res.body.error.fields ?? {});
    };
    expect(await fields({ filters: { colour: "red" } })).toEqual(["state.filters.colour"]);
    expect(await fields({ columns: ["startedAt", "nope"] })).toEqual(["state.columns"]);
    expect(await fields({ pinned: ["cost", "cost"] })).toEqual(["state.pinned"]);
    expect(await fields({ sort: { field: "status", dir: "asc" } })).toEqual(["state.sort.field"]);
    expect(await fields({ sort: { field: "cost", dir: "sideways" } })).toEqual(["state.sort.dir"]);
    expect(await fields({ segment: "nope" })).toEqual(["state.segment"]);
    expect(await fields({ colour: "red" })).toEqual(["state"]);
    // The tenant column is the super admin's only.
    expect(await fields({ columns: ["tenantName"] })).toEqual(["state.columns"]);
    // Link filters (a key's calls, a run's) and a time range's ends are the page's too.
    expect((await create({ name: "Links", state: { filters: { apiKeyId: "x", runId: "r" } } })).status).toBe(
      201,
    );
    // The filter builder's operators are the page's filter names too; an operator the filter lacks is not.
    const ops = { "latencyMs.gt": "100", "servedModel.not": "gpt" };
    expect((await create({ name: "Ops", state: { filters: ops } })).status).toBe(201);
    expect(await fields({ filters: { "runId.gt": "1" } })).toEqual(["state.filters.runId.gt"]);
    const long = await create({ name: "x".repeat(81) });
    expect(long.status).toBe(422);
    expect(Object.keys(long.body.error.fields)).toEqual(["name"]);
    // Twenty filters of 1,000 characters each: every part fits, the whole is past 16 KB.
    const filters = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`f${i}`, "x".repeat(1000)]));
    const big = await create({ name: "Big", state: { filters } });
    expect(big.status).toBe(422);
    expect(Object.keys(big.body.error.fields)).toContain("state");
    expect((await patch(crypto.randomUUID(), {})).status).toBe(422);
  });

  it("answers 409 naming the name for a duplicate, per person and page", async () => {
    await saved({ name: "Errors" });
    const dup = await create({ name: "Errors" });
    expect(dup.status).toBe(409);
    expect(Object.keys(dup.body.error.fields)).toEqual(["name"]);
    // Another page, or another person, may use the name.
    await saved({ page: "agent-audit", name: "Errors" });
    const other = await saved({ name: "Other" });
    const rename = await patch(other.id, { name: "Errors" });
    expect(rename.status).toBe(409);
    expect(Object.keys(rename.body.error.fields)).toEqual(["name"]);
    await as("multi@tollgate.test", "globex");
    await saved({ name: "Errors" });
  });

  it("keeps at most 50 views of a page per person", async () => {
    const globex = await app.tenantId("globex");
    const userId = await app.userId("admin@globex.test");
    await app.db.insert(savedView).values(
      Array.from({ length: 50 }, (_, i) => ({
        tenantId: globex,
        userId,
        page: LEDGER,
        name: `v${i}`,
        state: {},
      })),
    );
    const res = await create({ name: "One more" });
    expect(res.status).toBe(409);
    expect(res.body.error.message).toMatch(/at most 50/);
    expect((await create({ page: "agent-audit", name: "One more" })).status).toBe(201);
  });
});
