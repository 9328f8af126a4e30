import { eq } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { agentTask } from "@/db/schema";
import { DrizzleConversationStore } from "@/lib/governance/conversations";
import { useSeededAppDatabase } from "../helpers/app-db";
import { testDbKinds } from "../helpers/db";
import { session } from "../helpers/session";

vi.mock("@/lib/auth/session", () => import("../helpers/session"));

const list = await import("@/app/api/agent/conversations/route");
const one = await import("@/app/api/agent/conversations/[id]/route");
const pending = await import("@/app/api/agent/conversations/[id]/pending/route");

const json = (body: unknown) => ({
  method: "POST",
  body: JSON.stringify(body),
  headers: { "content-type": "application/json" },
});
const noParams = { params: Promise.resolve({}) };
const params = (id: string) => ({ params: Promise.resolve({ id }) });

describe.each(testDbKinds)("the conversation API on %s", (kind) => {
  let app: Awaited<ReturnType<typeof useSeededAppDatabase>>;
  const as = async (email: string, slug: string) => {
    session.claims = { userId: await app.userId(email), tenantId: await app.tenantId(slug) };
  };
  beforeAll(async () => {
    app = await useSeededAppDatabase(kind);
  });
  afterAll(async () => {
    await app.close();
  });
  beforeEach(() => {
    session.claims = null;
  });

  it("creates, lists, renames and deletes the user's own conversations", async () => {
    await as("member@acme.test", "acme");
    const created = await list.POST(new Request("http://app/api/agent/conversations", json({})), noParams);
    expect(created.status).toBe(201);
    const { conversation } = await created.json();
    const listed = await (await list.GET(new Request("http://app/api/agent/conversations"), noParams)).json();
    expect(listed.conversations.map((c: { id: string }) => c.id)).toContain(conversation.id);
    const renamed = await one.PATCH(
      new Request("http://app/x", { ...json({ title: "Quarterly numbers" }), method: "PATCH" }),
      params(conversation.id),
    );
    expect((await renamed.json()).conversation.title).toBe("Quarterly numbers");
    const got = await (await one.GET(new Request("http://app/x"), params(conversation.id))).json();
    expect(got).toMatchObject({
      conversation: { id: conversation.id, title: "Quarterly numbers" },
      messages: [],
    });
    expect(
      (await one.DELETE(new Request("http://app/x", { method: "DELETE" }), params(conversation.id))).status,
    ).toBe(204);
    expect((await one.GET(new Request("http://app/x"), params(conversation.id))).status).toBe(404);
  });

  it("answers 404 to another user, another tenant and a malformed id; 401 when signed out; 422 on a bad title", async () => {
    await as("member@acme.test", "acme");
    const { conversation } = await (
      await list.POST(new Request("http://app/api/agent/conversations", json({})), noParams)
    ).json();
    await as("admin@acme.test", "acme");
    expect((await one.GET(new Request("http://app/x"), params(conversation.id))).status).toBe(404);
    expect(
      (await one.DELETE(new Request("http://app/x", { method: "DELETE" }), params(conversation.id))).status,
    ).toBe(404);
    await as("multi@tollgate.test", "globex");
    expect((await one.GET(new Request("http://app/x"), params(conversation.id))).status).toBe(404);
    expect((await one.GET(new Request("http://app/x"), params("not-a-uuid"))).status).toBe(404);
    await as("member@acme.test", "acme");
    const bad = await one.PATCH(
      new Request("http://app/x", { ...json({ title: "  " }), method: "PATCH" }),
      params(conversation.id),
    );
    expect(bad.status).toBe(422);
    expect((await bad.json()).error.fields.title).toEqual(["the title must not be empty"]);
    session.claims = null;
    expect((await list.GET(new Request("http://app/api/agent/conversations"), noParams)).status).toBe(401);
  });
  it("shows what waits for the next turn: queued notices, stacked, and the background tasks still going", async () => {
    await as("member@acme.test", "acme");
    const { conversation } = await (
      await list.POST(new Request("http://app/api/agent/conversations", json({})), noParams)
    ).json();
    const look = async () => {
      const res = await pending.GET(new Request("http://app/x"), params(conversation.id));
      expect(res.status).toBe(200);
      expect(res.headers.get("cache-control")).toBe("no-store");
      return res.json();
    };
    expect(await look()).toEqual({ notices: [], tasks: 0 });

    const acme = await app.tenantId("acme");
    const member = await app.userId("member@acme.test");
    const [task] = await app.db
      .insert(agentTask)
      .values({ tenantId: acme, userId: member, conversationId: conversation.id, kind: "code", input: "1" })
      .returning();
    expect(await look()).toEqual({ notices: [], tasks: 1 });

    // The task ends and its result is queued (by whichever instance ran it): the next look shows it.
    await app.db.update(agentTask).set({ status: "done" }).where(eq(agentTask.id, task!.id));
    const store = new DrizzleConversationStore(async () => app.db);
    await store.queueNotification(acme, conversation.id, { type: "task_result", body: "<R>first</R>" });
    const first = await look();
    expect(first).toMatchObject({ tasks: 0, notices: [{ type: "task_result", body: "<R>first</R>" }] });
    // A second result stacks into the same notice, with a new id the drawer re-renders on.
    await store.queueNotification(acme, conversation.id, { type: "task_result", body: "<R>second</R>" });
    const second = await look();
    expect(second.notices).toHaveLength(1);
    expect(second.notices[0].body).toContain("<R>first</R>");
    expect(second.notices[0].body).toContain("<R>second</R>");
    expect(second.notices[0].id).not.toBe(first.notices[0].id);

    // Only the owner sees them; a turn taking them empties the list.
    await as("admin@acme.test", "acme");
    expect((await pending.GET(new Request("http://app/x"), params(conversation.id))).status).toBe(404);
    await as("multi@tollgate.test", "globex");
    expect((await pending.GET(new Request("http://app/x"), params(conversation.id))).status).toBe(404);
    expect((await pending.GET(new Request("http://app/x"), params("not-a-uuid"))).status).toBe(404);
    session.claims = null;
    expect((await pending.GET(new Request("http://app/x"), params(conversation.id))).status).toBe(401);
    await as("member@acme.test", "acme");
    expect(await store.takeNotifications(acme, conversation.id)).toHaveLength(1);
    expect(await look()).toEqual({ notices: [], tasks: 0 });
  });
});
