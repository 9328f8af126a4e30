// A real drawer turn (the offline demo model calling the demo orders tool) records what its replay needs: each
// model call, the tool's start and duration, and the answer as shown, in order and masked; the replay route
// serves it to the tenant's admins only.
import { and, asc, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { sysAgentAudit } from "@/db/schema";
import type { ReplayResponse } from "@/features/replay/contracts";
import { buildReplay } from "@/features/replay/replay-view";
import { createConversation } from "@/lib/governance/conversations";
import type { AgentEvent } from "@/lib/turns/events";
import { useSeededAppDatabase } from "../helpers/app-db";
import { testDbKinds } from "../helpers/db";
import { session } from "../helpers/session";

vi.mock("@/lib/auth/session", () => import("../helpers/session"));
const route = await import("@/app/api/agent/turns/[id]/replay/route");

// Assembled at run time so secret scanners do not flag this file.
const SECRET = ["sk-proj-", "Q1w2E3r4T5y6U7i8O9p0A1s2D3f4G5h6J7k8L9z0"].join("");

const replay = async (id: string) => {
  const res = await route.GET(new Request(`http://app/api/agent/turns/${id}/replay`), {
    params: Promise.resolve({ id }),
  });
  return { status: res.status, body: await res.json() };
};

describe.each(testDbKinds)("a drawer turn's replay on %s", (kind) => {
  let app: Awaited<ReturnType<typeof useSeededAppDatabase>>;
  let acme: string;
  let turnId: string;
  let streamed: AgentEvent[];
  const as = async (email: string, slug: string | null) => {
    session.claims = { userId: await app.userId(email), tenantId: slug ? await app.tenantId(slug) : null };
  };

  beforeAll(async () => {
    app = await useSeededAppDatabase(kind);
    acme = await app.tenantId("acme");
    const member = await app.userId("member@acme.test");
    const conversationId = (await createConversation(app.db, { tenantId: acme, userId: member })).id;
    streamed = [];
    for await (const e of app.container.agent.agent.send(
      { tenantId: acme, userId: member, role: "member", conversationId },
      { message: `What are my open orders? (my key is ${SECRET})`, model: "offline-demo" },
      new AbortController().signal,
    ))
      streamed.push(e);
    const done = streamed.at(-1) as Extract<AgentEvent, { type: "done" }>;
    expect(done.summary.status).toBe("success");
    turnId = done.summary.turnId;
  });
  afterAll(async () => {
    await app?.close();
  });

  const trail = () =>
    app.db
      .select()
      .from(sysAgentAudit)
      .where(and(eq(sysAgentAudit.tenantId, acme), eq(sysAgentAudit.turnId, turnId)))
      .orderBy(asc(sysAgentAudit.seq));

  it("records each model call, the tool with its timing, and the answer, in order", async () => {
    const events = await trail();
    expect(events.map((e) => e.type)).toEqual([
      "request",
      "tool_call",
      "model_call",
      "tool_result",
      "model_call",
      "answer",
    ]);
    expect(events.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    const [, call, first, result, second, answer] = events.map((e) => e.payload);
    expect(call).toMatchObject({ name: "query_orders", round: 1 });
    expect(first).toMatchObject({
      round: 1,
      outcome: "ok",
      servedProvider: "offline",
      servedModel: "offline-demo",
      fallbackIndex: 0,
      toolCalls: 1,
      cacheHit: false,
    });
    expect(first!.attempts).toHaveLength(1);
    expect(second).toMatchObject({ round: 2, outcome: "ok", toolCalls: 0 });
    // Offsets on the turn's clock: the second call starts after the tool ended, which started after the first call.
    const num = (v: unknown) => v as number;
    expect(num(first!.startMs)).toBeGreaterThanOrEqual(0);
    expect(num(first!.firstTokenMs)).toBeLessThanOrEqual(num(first!.durationMs));
    expect(num(result!.startMs)).toBeGreaterThanOrEqual(num(first!.startMs) + num(first!.durationMs) - 1);
    expect(num(second!.startMs)).toBeGreaterThanOrEqual(num(result!.startMs) + num(result!.durationMs) - 1);
    expect(result).toMatchObject({ name: "query_orders", ok: true });
    // The answer event holds exactly the text the user saw streamed.
    const shown = streamed.flatMap((e) => (e.type === "text" ? [e.delta] : [])).join("");
    expect(answer).toMatchObject({ status: "success", text: shown });
    expect(shown.length).toBeGreaterThan(0);
  });

  it("masks the secret in every event, the new ones included", async () => {
    const events = await trail();
    expect(JSON.stringify(events.map((e) => e.payload))).not.toContain(SECRET);
    expect(events[0]!.payload.message).toContain("[masked:openai_key]");
  });

  it("never streams the record-only events to the drawer", () => {
    expect(streamed.map((e) => e.type)).not.toContain("model_call");
    expect(streamed.map((e) => e.type)).not.toContain("answer");
  });

  it("serves the replay to the tenant's admin: the row, the events in order, and rounds that build", async () => {
    await as("admin@acme.test", "acme");
    const { status, body } = await replay(turnId);
    expect(status).toBe(200);
    const data = body as ReplayResponse;
    expect(data.turn).toMatchObject({ id: turnId, status: "success", source: "drawer", rounds: 2 });
    expect(data.events.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    const built = buildReplay(data.turn, data.events);
    expect(built.steps.map((s) => s.kind)).toEqual(["request", "model", "tool", "model", "answer"]);
    expect(built.missing).toEqual([]);
    expect(built.waterfall.filter((r) => r.kind !== "wait").map((r) => r.kind)).toEqual([
      "model",
      "tool",
      "model",
    ]);
    const tool = built.steps.find((s) => s.kind === "tool");
    // The tool's result (a JSON string) arrives decoded, not as escaped text.
    expect(tool).toMatchObject({ result: { kind: "json" } });
  });

  it("badges the turn's audit chain: intact as recorded, broken at the event whose payload was edited", async () => {
    await as("admin@acme.test", "acme");
    expect((await replay(turnId)).body.chain).toEqual({ state: "intact", checked: 6 });
    const [, , third] = await trail();
    await app.db
      .update(sysAgentAudit)
      .set({ payload: { ...third!.payload, edited: true } })
      .where(eq(sysAgentAudit.id, third!.id));
    expect((await replay(turnId)).body.chain).toEqual({ state: "broken", reason: "content", seq: 3 });
    await app.db
      .update(sysAgentAudit)
      .set({ payload: third!.payload })
      .where(eq(sysAgentAudit.id, third!.id));
    expect((await replay(turnId)).body.chain).toEqual({ state: "intact", checked: 6 });
  });

  it("links the turn to its neighbours by start time within the tenant", async () => {
    await as("admin@acme.test", "acme");
    const member = await app.userId("member@acme.test");
    const conversationId = (await createConversation(app.db, { tenantId: acme, userId: member })).id;
    let later = "";
    for await (const e of app.container.agent.agent.send(
      { tenantId: acme, userId: member, role: "member", conversationId },
      { message: "Hello", model: "offline-demo" },
      new AbortController().signal,
    ))
      if (e.type === "done") later = e.summary.turnId;
    expect((await replay(turnId)).body.next).toBe(later);
    expect((await replay(later)).body.prev).toBe(turnId);
  });

  it("answers 404 for another tenant's turn and a malformed id, and 403 for a member", async () => {
    await as("admin@globex.test", "globex");
    expect((await replay(turnId)).status).toBe(404);
    expect((await replay("not-a-uuid")).status).toBe(404);
    await as("member@acme.test", "acme");
    expect((await replay(turnId)).status).toBe(403);
    // The platform super admin (no tenant chosen) sees every tenant's turns.
    await as("root@tollgate.test", null);
    expect((await replay(turnId)).body.turn).toMatchObject({ id: turnId, tenantName: expect.any(String) });
  });
});
