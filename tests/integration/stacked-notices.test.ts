import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { sysAgentNotification } from "@/db/schema";
import { ToolRegistry } from "@/lib/agent/registry";
import { AgentService } from "@/lib/agent/service";
import { taskResultMessage } from "@/lib/agent/tasks";
import { configFromEnvironment } from "@/lib/gateway/config";
import { Gateway } from "@/lib/gateway/gateway";
import { createConversation, DrizzleConversationStore } from "@/lib/governance/conversations";
import {
  type ConversationStore,
  InMemoryConversationStore,
  MAX_NOTIFICATION_STACK,
  mergeNotification,
} from "@/lib/turns/conversation";
import type { AgentEvent } from "@/lib/turns/events";
import { useSeededAppDatabase } from "../helpers/app-db";
import { testDbKinds } from "../helpers/db";

const result = (id: string, output: string) => ({
  type: "task_result",
  body: taskResultMessage({ id, kind: "research", status: "succeeded", output }),
});

describe("stacking notifications in memory", () => {
  it("moves the stack of a type to the tail with the new one last, and keeps other types' order", () => {
    let q = mergeNotification([], result("a", "A"));
    q = mergeNotification(q, { type: "note", body: "N" });
    q = mergeNotification(q, result("b", "B"));
    expect(q.map((n) => n.type)).toEqual(["note", "task_result"]);
    expect(q[1]!.body.indexOf('task_id="a"')).toBeLessThan(q[1]!.body.indexOf('task_id="b"'));
  });

  it("drops the oldest of a stack past its bound, from a whole notice on, and says so", () => {
    let q: ReturnType<typeof mergeNotification> = [];
    const big = "x".repeat(1_900);
    for (let i = 0; i < 20; i++) q = mergeNotification(q, result(`t${i}`, `${i}:${big}`));
    expect(q).toHaveLength(1);
    const body = q[0]!.body;
    expect(body.length).toBeLessThanOrEqual(MAX_NOTIFICATION_STACK);
    expect(body).toMatch(/^\(older notices dropped: too many pending\)\n<TASK_RESULT task_id="t\d+"/);
    expect(body.match(/older notices dropped/g)).toHaveLength(1);
    expect(body).toContain(`task_id="t19"`);
    expect(body).not.toContain(`task_id="t0"`);
  });
});

describe.each(testDbKinds)("stacked notices while a conversation is busy on %s", (kind) => {
  let app: Awaited<ReturnType<typeof useSeededAppDatabase>>;
  let acme: string;
  let max: string;
  beforeAll(async () => {
    app = await useSeededAppDatabase(kind);
    acme = await app.tenantId("acme");
    max = await app.userId("member@acme.test");
  });
  afterAll(async () => {
    await app.close();
  });
  beforeEach(async () => {
    await app.db.delete(sysAgentNotification);
  });

  // Two stores on PostgreSQL: the second on its own pool, as another replica's task runner would be.
  const stores = async (): Promise<[string, ConversationStore, ConversationStore][]> => {
    const second = await app.secondPool();
    const memory = new InMemoryConversationStore();
    return [
      ["in memory", memory, memory],
      [
        "PostgreSQL",
        new DrizzleConversationStore(async () => app.db),
        new DrizzleConversationStore(async () => second),
      ],
    ];
  };

  it("two task results finishing at once arrive as one merged notice, none lost (both stores)", async () => {
    for (const [name, one, two] of await stores()) {
      const conversationId = (await createConversation(app.db, { tenantId: acme, userId: max })).id;
      await one.queueNotification(acme, conversationId, result("stale", "an older result"));
      await one.queueNotification(acme, conversationId, { type: "note", body: "a note in between" });
      // Many at once from two "replicas": each merges into the one stack, none is lost or duplicated.
      await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          (i % 2 ? one : two).queueNotification(acme, conversationId, result(`r${i}`, `result ${i}`)),
        ),
      );
      const taken = await one.takeNotifications(acme, conversationId);
      expect(
        taken.map((n) => n.type),
        name,
      ).toEqual(["note", "task_result"]);
      const stack = taken[1]!.body;
      expect(stack.match(/<TASK_RESULT /g), name).toHaveLength(13);
      for (let i = 0; i < 12; i++) expect(stack.split(`result ${i}\n`).length - 1, `${name} r${i}`).toBe(1);
      // The stale one is first: the newest results are at the tail, not stuck behind it.
      expect(stack.indexOf("an older result"), name).toBeLessThan(stack.indexOf("result 0\n"));
      expect(await one.takeNotifications(acme, conversationId), name).toEqual([]);
    }
  });

  it("the next turn takes the stack as one message", async () => {
    const store = new DrizzleConversationStore(async () => app.db);
    const conversationId = (await createConversation(app.db, { tenantId: acme, userId: max })).id;
    await Promise.all([
      store.queueNotification(acme, conversationId, result("t1", "first done")),
      store.queueNotification(acme, conversationId, result("t2", "second done")),
    ]);
    const agent = new AgentService({
      gateway: new Gateway(configFromEnvironment({ OFFLINE_CHUNK_DELAY_MS: "0" })),
      registry: new ToolRegistry(),
      store,
    });
    const events: AgentEvent[] = [];
    for await (const event of agent.send(
      { tenantId: acme, userId: max, role: "member", conversationId },
      { message: "what came back?" },
      new AbortController().signal,
    ))
      events.push(event);
    const history = await store.history(acme, conversationId);
    const notices = history.filter((m) => m.kind === "notification");
    expect(notices).toHaveLength(1);
    // The stream tells the drawer what the turn took, so a notice that arrived after its last look still shows.
    expect(events.filter((e) => e.type === "note")).toEqual([
      { type: "note", noteType: "task_result", text: notices[0]!.content },
    ]);
    expect(notices[0]!.content).toMatch(/first done[\s\S]*second done|second done[\s\S]*first done/);
    expect(history.map((m) => m.role)).toEqual(["user", "user", "assistant"]);
  });
});
