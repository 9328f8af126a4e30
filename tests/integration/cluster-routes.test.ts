// Two replicas of the app over one database, each with its own container and cluster bus (its own connection):
// the drawer's turn runs on B, and the user's Stop and Approve land on A through the real route handlers. A task
// started on B and stopped from A is dropped by B at once. PostgreSQL LISTEN/NOTIFY, and Redis pub/sub.
import { eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { appUser, tenant } from "@/db/schema";
import { seedDemo } from "@/features/demo/server/seed";
import { DrizzleTaskQueue } from "@/lib/agent/task-queue";
import { TaskManager } from "@/lib/agent/tasks";
import { defineTool, StaticToolSet } from "@/lib/agent/tool";
import type { SessionClaims } from "@/lib/auth/session";
import type { ClusterBusOptions } from "@/lib/cluster";
import { createConversation, DrizzleConversationStore } from "@/lib/governance/conversations";
import { type Container, createContainer, installContainer } from "@/server/container";
import { call, ScriptedModel, scriptedGateway } from "../fakes/scripted-model";
import { createMigratedDatabase, postgresAdminUrl, type TestDatabase, testDbKinds } from "../helpers/db";
import { session } from "../helpers/session";
import { readSse } from "../helpers/sse";
import { postTurn } from "../helpers/turns";

vi.mock("@/lib/auth/session", () => import("../helpers/session"));

const stop = await import("@/app/api/agent/turns/[id]/stop/route");
const confirm = await import("@/app/api/agent/turns/[id]/confirm/route");

const redisUrl = process.env.TEST_REDIS_URL ?? "";
const setups = [
  ...(postgresAdminUrl
    ? [{ name: "PostgreSQL LISTEN/NOTIFY", kind: "postgres" as const, via: "postgres" }]
    : []),
  ...(redisUrl ? testDbKinds.map((kind) => ({ name: `Redis pub/sub, ${kind}`, kind, via: "redis" })) : []),
];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const post = (path: string, body?: unknown) =>
  new Request(`http://app${path}`, {
    method: "POST",
    ...(body === undefined
      ? {}
      : { body: JSON.stringify(body), headers: { "content-type": "application/json" } }),
  });
const stopTurn = (turnId: string) =>
  stop.POST(post(`/api/agent/turns/${turnId}/stop`), { params: Promise.resolve({ id: turnId }) });
const decide = (turnId: string, callId: string, approve: boolean) =>
  confirm.POST(post(`/api/agent/turns/${turnId}/confirm`, { callId, approve }), {
    params: Promise.resolve({ id: turnId }),
  });

// Without PostgreSQL or Redis (the Node 22/24 runs) the suite is listed as skipped: it needs a shared bus.
describe
  .skipIf(!setups.length)
  .each(
    setups.length
      ? setups
      : [{ name: "needs PostgreSQL or Redis", kind: "postgres" as const, via: "postgres" }],
  )("Stop and approvals from another replica: $name", ({ kind, via }) => {
  let test: TestDatabase;
  let source: ClusterBusOptions;
  let member: SessionClaims;
  let admin: SessionClaims;
  let a: Container;
  let b: Container;
  let ran: string[];

  /** The tools both replicas have: one that waits until it is stopped, one that needs the user's yes. */
  const tools = () =>
    new StaticToolSet("cluster_test", [
      defineTool({
        name: "wait_for_stop",
        description: "Waits until the turn is stopped",
        parameters: z.object({}),
        execute: (_args, ctx) =>
          new Promise((resolve) => ctx.signal.addEventListener("abort", () => resolve({ stopped: true }))),
      }),
      defineTool({
        name: "transfer_funds",
        description: "Moves money",
        requiresConfirmation: true,
        parameters: z.object({ amount: z.number() }),
        execute: async ({ amount }) => {
          ran.push(`transfer ${amount}`);
          return { transferred: amount };
        },
      }),
    ]);

  async function replica(model: ScriptedModel): Promise<Container> {
    const app = createContainer({
      database: test.handle,
      demo: false,
      gateway: scriptedGateway(model),
      cluster: source,
      env: { ...process.env, TOOL_CONFIRMATION_TIMEOUT_MS: "20000" },
    });
    app.tools.registry.register(tools());
    app.cluster.start();
    await app.cluster.ready;
    return app;
  }

  beforeAll(async () => {
    test = await createMigratedDatabase(kind);
    await seedDemo(test.handle.db);
    source =
      via === "redis"
        ? { redisUrl, redisPrefix: `tollgate-routes-test-${process.pid}-${Date.now()}:` }
        : { postgresUrl: test.url! };
    const db = test.handle.db;
    const [acme] = await db.select().from(tenant).where(eq(tenant.slug, "acme"));
    const id = async (email: string) =>
      (await db.select().from(appUser).where(eq(appUser.email, email)))[0]!.id;
    member = { userId: await id("member@acme.test"), tenantId: acme!.id };
    admin = { userId: await id("admin@acme.test"), tenantId: acme!.id };
  });
  beforeEach(() => {
    ran = [];
    session.claims = member;
  });
  afterEach(async () => {
    installContainer(undefined);
    await a?.close();
    await b?.close();
  });
  afterAll(async () => {
    await test?.drop();
  });

  /** Sends the turn to B (the process B's container is installed in), and runs `onFrame` with A installed. */
  async function turnOnB(
    message: string,
    onFrame: (event: string, data: Record<string, unknown>, turnId: string) => Promise<void>,
  ) {
    installContainer(b);
    const res = await postTurn({ message });
    expect(res.status).toBe(200);
    let turnId = "";
    return readSse(res, async (f) => {
      if (f.event === "turn") turnId = f.data.turnId as string;
      // The user's next request lands on the other replica.
      installContainer(a);
      await onFrame(f.event, f.data, turnId);
    });
  }

  it("a Stop that lands on A stops the turn running on B; another user's Stop does not", async () => {
    a = await replica(new ScriptedModel([]));
    b = await replica(new ScriptedModel([{ toolCalls: [call("wait_for_stop")] }], { text: "never" }));
    const frames = await turnOnB("wait", async (event, _data, turnId) => {
      if (event !== "tool_call") return;
      expect(b.agent.turns.size).toBe(1);
      session.claims = admin;
      const theirs = await stopTurn(turnId);
      expect(theirs.status).toBe(409);
      expect(await theirs.json()).toEqual({ stopped: false });
      session.claims = member;
      const mine = await stopTurn(turnId);
      expect(mine.status).toBe(202);
      expect(await mine.json()).toEqual({ stopped: true });
    });
    expect(frames.at(-1)).toMatchObject({ event: "done", data: { summary: { status: "stopped" } } });
    expect(b.agent.turns.size).toBe(0);
    // Over: neither replica runs it now.
    const turnId = frames[0]!.data.turnId as string;
    expect((await stopTurn(turnId)).status).toBe(409);
  });

  it("an Approve that lands on A runs the call on B once; a second answer and another user's are refused", async () => {
    a = await replica(new ScriptedModel([]));
    b = await replica(
      new ScriptedModel([
        { toolCalls: [call("transfer_funds", { amount: 40 }, "call_pay")] },
        { text: "Sent." },
      ]),
    );
    const frames = await turnOnB("pay 40", async (event, data, turnId) => {
      if (event !== "confirm") return;
      expect(b.agent.confirmations.pending).toBe(1);
      session.claims = admin;
      const theirs = await decide(turnId, data.callId as string, true);
      expect(theirs.status).toBe(404);
      expect(ran).toEqual([]);
      session.claims = member;
      const mine = await decide(turnId, data.callId as string, true);
      expect(mine.status).toBe(200);
      expect(await mine.json()).toEqual({ callId: "call_pay", decision: "approve" });
      const again = await decide(turnId, data.callId as string, true);
      expect(again.status).toBe(409);
      expect((await again.json()).error.message).toBe("this call was already approved");
    });
    expect(frames.find((f) => f.event === "confirmation")?.data).toMatchObject({
      callId: "call_pay",
      decision: "approve",
      by: member.userId,
    });
    expect(frames.at(-1)).toMatchObject({ event: "done", data: { summary: { status: "success" } } });
    expect(ran).toEqual(["transfer 40"]);
  });

  it("a Deny that lands on A denies the call on B: it never runs", async () => {
    a = await replica(new ScriptedModel([]));
    b = await replica(
      new ScriptedModel([
        { toolCalls: [call("transfer_funds", { amount: 9 }, "call_pay")] },
        { text: "Not sent." },
      ]),
    );
    const frames = await turnOnB("pay 9", async (event, data, turnId) => {
      if (event === "confirm") expect((await decide(turnId, data.callId as string, false)).status).toBe(200);
    });
    expect(frames.find((f) => f.event === "confirmation")?.data).toMatchObject({ decision: "deny" });
    expect(ran).toEqual([]);
  });

  it("a background task running on B and stopped from A is dropped by B at once, not at its next lease renewal", async () => {
    a = await replica(new ScriptedModel([]));
    b = await replica(new ScriptedModel([]));
    const db = async () => test.handle.db;
    const conversationId = (
      await createConversation(test.handle.db, { tenantId: member.tenantId!, userId: member.userId })
    ).id;
    let signal: AbortSignal | undefined;
    const kinds = {
      slow: {
        description: "runs until stopped",
        run: (_input: string, ctx: { signal: AbortSignal }) => {
          signal = ctx.signal;
          return new Promise<string>((resolve) =>
            ctx.signal.addEventListener("abort", () => resolve("stopped")),
          );
        },
      },
    };
    // Leases of a minute, renewed every 20 s: only the bus can make B let go within the test's wait.
    const manager = (app: Container) =>
      new TaskManager(new DrizzleConversationStore(db), kinds, {
        queue: new DrizzleTaskQueue(db),
        cluster: app.cluster,
        leaseMs: 60_000,
        pollMs: 60_000,
      });
    const onA = manager(a);
    const onB = manager(b);
    try {
      const { taskId } = await onB.start(
        { tenantId: member.tenantId!, userId: member.userId, role: "member", conversationId },
        "slow",
        "go",
      );
      for (let i = 0; i < 300 && !signal; i++) await sleep(10);
      expect(signal?.aborted).toBe(false);
      expect(await onA.stop(member.tenantId!, conversationId, taskId)).toEqual({ stopped: true });
      for (let i = 0; i < 300 && !signal!.aborted; i++) await sleep(10);
      expect(signal!.aborted).toBe(true);
      await onB.idle();
      expect(await onA.get(member.tenantId!, conversationId, taskId)).toMatchObject({ status: "stopped" });
    } finally {
      onA.stopRunner();
      onB.stopRunner();
    }
  });
});
