import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { adminChange, appUser, membership, sysAgentTurn } from "@/db/schema";
import { useSeededAppDatabase } from "../helpers/app-db";
import { testDbKinds } from "../helpers/db";
import { schemaJson } from "../helpers/schema-api";
import { session } from "../helpers/session";

vi.mock("@/lib/auth/session", () => import("../helpers/session"));
vi.mock("@/lib/auth", () => ({ unstable_update: async () => null }));

const memberRoute = await import("@/app/api/admin/members/[userId]/route");
const promptsRoute = await import("@/app/api/prompts/route");

type Handler<P> = (req: Request, segment: { params: Promise<P> }) => Promise<Response>;
async function call<P>(handler: Handler<P>, method: string, params: P, body?: unknown) {
  const res = await handler(
    new Request("http://app.test/api/x", {
      method,
      headers: { "content-type": "application/json", "x-request-id": `req-${Math.random()}` },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
    { params: Promise.resolve(params) },
  );
  return { status: res.status, body: await res.json() };
}

const chatPrompt = (name: string) => ({
  name,
  type: "chat",
  messages: [{ role: "system", content: "Answer {{topic}} questions." }],
});

describe.each(testDbKinds)("prompt editors on the members page on %s", (kind) => {
  let app: Awaited<ReturnType<typeof useSeededAppDatabase>>;
  let acme: string;
  let member: string;
  const as = async (email: string, slug: string) => {
    const userId = await app.userId(email);
    const [u] = await app.db.select().from(appUser).where(eq(appUser.id, userId));
    session.claims = { userId, tenantId: await app.tenantId(slug), epoch: u!.sessionEpoch };
  };
  const editorChanges = () =>
    app.db
      .select()
      .from(adminChange)
      .where(eq(adminChange.action, "member.prompt_editor_set"))
      .orderBy(adminChange.createdAt);
  const schemaRows = (key: string) => schemaJson(`${key}/rows?limit=200`);

  beforeAll(async () => {
    app = await useSeededAppDatabase(kind);
    acme = await app.tenantId("acme");
    member = await app.userId("member@acme.test");
  });
  afterAll(() => app.close());

  it("an admin marks a member as prompt editor: the member may then save versions; each change is one change row", async () => {
    await as("member@acme.test", "acme");
    expect((await call(promptsRoute.POST, "POST", {}, chatPrompt("support/triage"))).status).toBe(403);

    await as("admin@acme.test", "acme");
    const set = await call(memberRoute.PATCH, "PATCH", { userId: member }, { promptEditor: true });
    expect(set.status).toBe(200);
    expect(set.body.member).toMatchObject({ email: "member@acme.test", role: "member", promptEditor: true });
    // The same value again changes nothing and writes no row.
    expect((await call(memberRoute.PATCH, "PATCH", { userId: member }, { promptEditor: true })).status).toBe(
      200,
    );

    await as("member@acme.test", "acme");
    const created = await call(promptsRoute.POST, "POST", {}, chatPrompt("support/triage"));
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: "support/triage", version: 1 });
    // An editor still may not move production.
    const production = await call(
      promptsRoute.POST,
      "POST",
      {},
      { ...chatPrompt("support/triage"), labels: ["production"] },
    );
    expect(production.status).toBe(403);

    await as("admin@acme.test", "acme");
    expect((await call(memberRoute.PATCH, "PATCH", { userId: member }, { promptEditor: false })).status).toBe(
      200,
    );
    await as("member@acme.test", "acme");
    expect((await call(promptsRoute.POST, "POST", {}, chatPrompt("support/triage"))).status).toBe(403);

    const rows = await editorChanges();
    expect(rows).toMatchObject([
      {
        tenantId: acme,
        objectType: "member",
        objectId: member,
        actorEmail: "admin@acme.test",
        before: { email: "member@acme.test", promptEditor: false },
        after: { email: "member@acme.test", promptEditor: true },
      },
      {
        before: { promptEditor: true },
        after: { promptEditor: false },
      },
    ]);
  });

  it("only the member's own tenant's admins may set it: a member gets 403, another tenant's admin 404", async () => {
    await as("member@acme.test", "acme");
    const self = await call(memberRoute.PATCH, "PATCH", { userId: member }, { promptEditor: true });
    expect(self.status).toBe(403);

    await as("admin@globex.test", "globex");
    const other = await call(memberRoute.PATCH, "PATCH", { userId: member }, { promptEditor: true });
    expect(other.status).toBe(404);
    const [row] = await app.db
      .select({ editor: membership.promptEditor })
      .from(membership)
      .where(and(eq(membership.tenantId, acme), eq(membership.userId, member)));
    expect(row!.editor).toBe(false);
    expect(await editorChanges()).toHaveLength(2);
  });

  it("a bad body is a 422 naming the field", async () => {
    await as("admin@acme.test", "acme");
    const wrong = await call(memberRoute.PATCH, "PATCH", { userId: member }, { promptEditor: "yes" });
    expect(wrong.status).toBe(422);
    expect(wrong.body.error.fields.promptEditor).toEqual(["true or false"]);
    const empty = await call(memberRoute.PATCH, "PATCH", { userId: member }, {});
    expect(empty.status).toBe(422);
    expect(empty.body.error.fields.role).toEqual(["give role, promptEditor and/or reviewer"]);
    // A role change through the same route still works, and says the flag.
    const promoted = await call(memberRoute.PATCH, "PATCH", { userId: member }, { role: "admin" });
    expect(promoted.body.member).toMatchObject({ role: "admin", promptEditor: false });
    await call(memberRoute.PATCH, "PATCH", { userId: member }, { role: "member" });
  });

  it("the members list carries the flag; the prompts list is open to members, tenant-scoped, with 7 days of calls and cost", async () => {
    await as("admin@acme.test", "acme");
    const members = await schemaRows("admin-members");
    expect(members.body.rows.find((r: { email: string }) => r.email === "member@acme.test")).toMatchObject({
      promptEditor: false,
    });
    const created = await call(
      promptsRoute.POST,
      "POST",
      {},
      { ...chatPrompt("billing/refunds"), labels: ["production"] },
    );
    expect(created.body).toEqual({ name: "billing/refunds", version: 1, labels: ["latest", "production"] });
    await call(promptsRoute.POST, "POST", {}, { ...chatPrompt("billing/refunds"), labels: ["staging"] });
    const globex = await app.tenantId("globex");
    await as("admin@globex.test", "globex");
    await call(promptsRoute.POST, "POST", {}, chatPrompt("globex-only"));

    const turn = (tenantId: string, startedAt: Date, cost: string) => ({
      id: crypto.randomUUID(),
      tenantId,
      userId: member,
      source: "playground" as const,
      requestedModel: "m",
      status: "success" as const,
      cost,
      startedAt,
      promptName: "billing/refunds",
      promptVersion: 1,
    });
    await app.db.insert(sysAgentTurn).values([
      turn(acme, new Date(), "0.25"),
      turn(acme, new Date(Date.now() - 86_400_000), "0.5"),
      // Older than a week, and another tenant's row of the same name: neither counts.
      turn(acme, new Date(Date.now() - 8 * 86_400_000), "9"),
      turn(globex, new Date(), "7"),
    ]);

    await as("member@acme.test", "acme");
    const list = await schemaRows("agent-prompts");
    expect(list.status).toBe(200);
    const rows = list.body.rows as { name: string; tenantId: string }[];
    expect(rows.every((r) => r.tenantId === acme)).toBe(true);
    expect(rows.map((r) => r.name)).not.toContain("globex-only");
    expect(rows.find((r) => r.name === "billing/refunds")).toMatchObject({
      type: "chat",
      labels: ["production v1", "staging v2"],
      latestVersion: 2,
      calls7d: 2,
      cost7d: expect.stringMatching(/^0\.750*$/),
      updatedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
    });
    // A member still may not read admin-only pages.
    expect((await schemaRows("admin-members")).status).toBe(403);
  });
});
