import { and, asc, eq } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { sysAgentAudit, sysAgentMessage, sysAgentTurn } from "@/db/schema";
import { ScriptedModel, scriptedGateway } from "../fakes/scripted-model";
import { useSeededAppDatabase } from "../helpers/app-db";
import { testDbKinds } from "../helpers/db";
import { session } from "../helpers/session";
import { postTurn as post } from "../helpers/turns";

vi.mock("@/lib/auth/session", () => import("../helpers/session"));

const list = await import("@/app/api/agent/conversations/route");
const one = await import("@/app/api/agent/conversations/[id]/route");

/** Sends a turn and reads it to the end; the turn id from its first event. */
async function sendTurn(body: unknown): Promise<{ conversationId: string; turnId: string; text: string }> {
  const res = await post(body);
  expect(res.status).toBe(200);
  const raw = await res.text();
  const turnId = /"turnId":"([^"]+)"/.exec(raw)![1]!;
  const text = [...raw.matchAll(/event: text\ndata: (.*)/g)].map((m) => JSON.parse(m[1]!).delta).join("");
  return { conversationId: res.headers.get("x-conversation-id")!, turnId, text };
}

describe.each(testDbKinds)("edit and regenerate on %s", (kind) => {
  let app: Awaited<ReturnType<typeof useSeededAppDatabase>>;
  let model: ScriptedModel;
  let answers = 0;
  beforeAll(async () => {
    app = await useSeededAppDatabase(kind);
  });
  afterAll(async () => {
    await app.close();
  });
  beforeEach(async () => {
    session.claims = { userId: await app.userId("member@acme.test"), tenantId: await app.tenantId("acme") };
    model = new ScriptedModel([], () => ({ text: `answer ${++answers}` }));
    await app.rebuild({ gateway: scriptedGateway(model) });
  });

  const messagesOf = (conversationId: string) =>
    app.db
      .select()
      .from(sysAgentMessage)
      .where(eq(sysAgentMessage.sessionId, conversationId))
      .orderBy(asc(sysAgentMessage.seq));
  const sentToModel = (n: number) =>
    model.requests[n]!.messages.filter((m) => m.role !== "system").map((m) => `${m.role}: ${m.content}`);

  it("regenerate and edit keep the replaced messages stored, leave them out of the model's context, and are governed turns", async () => {
    const first = await sendTurn({ message: "first question", model: "scripted" });
    const { conversationId } = first;
    const second = await sendTurn({ conversationId, message: "second question", model: "scripted" });

    const regenerated = await sendTurn({ conversationId, regenerate: true, model: "scripted" });
    // The model saw the first pair and the repeated question, never the answer it replaces.
    expect(sentToModel(2)).toEqual([
      "user: first question",
      `assistant: ${first.text}`,
      "user: second question",
    ]);

    const edited = await sendTurn({
      conversationId,
      replace: "last",
      message: "edited question",
      model: "scripted",
    });
    expect(sentToModel(3)).toEqual([
      "user: first question",
      `assistant: ${first.text}`,
      "user: edited question",
    ]);

    // Nothing was deleted: the two replaced turns are stored, each marked superseded by the turn that replaced it.
    const stored = await messagesOf(conversationId);
    expect(stored.map((m) => [m.role, m.parts.content, m.supersededBy])).toEqual([
      ["user", "first question", null],
      ["assistant", first.text, null],
      ["user", "second question", regenerated.turnId],
      ["assistant", second.text, regenerated.turnId],
      ["user", "second question", edited.turnId],
      ["assistant", regenerated.text, edited.turnId],
      ["user", "edited question", null],
      ["assistant", edited.text, null],
    ]);
    expect(stored.filter((m) => m.supersededBy).every((m) => m.supersededAt instanceof Date)).toBe(true);

    // The drawer's view is the conversation as it stands.
    const view = await (
      await one.GET(new Request("http://app/x"), { params: Promise.resolve({ id: conversationId }) })
    ).json();
    expect(view.messages.map((m: { content: string }) => m.content)).toEqual([
      "first question",
      first.text,
      "edited question",
      edited.text,
    ]);

    // Four normal ledger rows, each closed with its tokens and cost; the audit names what each replaced.
    const ledger = await app.db
      .select()
      .from(sysAgentTurn)
      .where(eq(sysAgentTurn.conversationId, conversationId));
    expect(ledger).toHaveLength(4);
    for (const row of ledger) {
      expect(row).toMatchObject({ status: "success", source: "drawer", inputTokens: 10, outputTokens: 5 });
      expect(Number(row.cost)).toBeGreaterThan(0);
    }
    await vi.waitFor(async () => {
      const requests = await app.db
        .select()
        .from(sysAgentAudit)
        .where(and(eq(sysAgentAudit.conversationId, conversationId), eq(sysAgentAudit.type, "request")));
      const byTurn = new Map(requests.map((r) => [r.turnId, r.payload]));
      expect(byTurn.get(regenerated.turnId)).toMatchObject({
        message: "second question",
        replaces: { turnId: second.turnId, action: "regenerate" },
      });
      expect(byTurn.get(edited.turnId)).toMatchObject({
        message: "edited question",
        replaces: { turnId: regenerated.turnId, action: "edit" },
      });
      expect(byTurn.get(first.turnId)).not.toHaveProperty("replaces");
    });
  });

  it("refuses an edit or regenerate with nothing to replace, or without its conversation, naming why", async () => {
    const { conversation } = await (
      await list.POST(
        new Request("http://app/api/agent/conversations", {
          method: "POST",
          body: "{}",
          headers: { "content-type": "application/json" },
        }),
        { params: Promise.resolve({}) },
      )
    ).json();
    const nothing = await post({ conversationId: conversation.id, regenerate: true, model: "scripted" });
    expect(nothing.status).toBe(409);
    expect((await nothing.json()).error.message).toContain("no message to edit or regenerate");

    const lost = await post({ regenerate: true });
    expect(lost.status).toBe(422);
    expect((await lost.json()).error.fields.conversationId).toBeDefined();
    const both = await post({ conversationId: conversation.id, regenerate: true, message: "x" });
    expect((await both.json()).error.fields.message).toEqual([
      "regenerate asks again for the last message; send no message with it",
    ]);
    const tooLong = await post({ message: "x".repeat(32_001) });
    expect(tooLong.status).toBe(422);
    expect((await tooLong.json()).error.fields.message).toEqual([
      "the message is too long (32,000 characters at most)",
    ]);
    expect(model.requests).toHaveLength(0);
  });

  it("searches the user's own conversations by title and message text, and titles carry no markdown", async () => {
    const mine = await sendTurn({ message: "## Plan the **zebra** launch\nwith details", model: "scripted" });
    await sendTurn({
      conversationId: mine.conversationId,
      message: "what about PENGUINS_100%?",
      model: "scripted",
    });
    const search = async (q: string) => {
      const res = await list.GET(
        new Request(`http://app/api/agent/conversations?q=${encodeURIComponent(q)}`),
        { params: Promise.resolve({}) },
      );
      expect(res.status).toBe(200);
      return (await res.json()).conversations as { id: string; title: string }[];
    };
    const byTitle = await search("ZEBRA");
    expect(byTitle.map((c) => c.id)).toEqual([mine.conversationId]);
    expect(byTitle[0]!.title).toBe("Plan the zebra launch");
    expect((await search("penguins_100%")).map((c) => c.id)).toEqual([mine.conversationId]);
    // LIKE wildcards match themselves only.
    expect(await search("penguins_1000")).toEqual([]);
    expect((await search("%")).map((c) => c.id)).toEqual([mine.conversationId]);

    // Another user of the same tenant finds nothing of it.
    session.claims = { userId: await app.userId("admin@acme.test"), tenantId: await app.tenantId("acme") };
    expect(await search("zebra")).toEqual([]);
  });
});
