// Sustained overload against the /v1 handler with a ledger writer slower than the served rate: the backlog
// stays within its bound (callers wait, or get 503 with Retry-After), memory stays flat, and afterwards every
// answered call has exactly one ledger row.
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { eq, inArray, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/db";
import { sysAgentTurn } from "@/db/schema";
import { createApiKey } from "@/features/keys/server/keys";
import { createV1Core, refuseTooLarge } from "@/features/v1/server/handler";
import { withLedgerBackpressure } from "@/features/v1/server/index";
import { parseGatewayConfig } from "@/lib/gateway/config";
import { Gateway } from "@/lib/gateway/gateway";
import { BatchedGovernanceRecorder } from "@/lib/governance/batched-recorder";
import { webHandler } from "@/lib/http/exchange";
import { PostgresResponseCache } from "@/lib/pipeline/cache-store";
import { PostgresCounters } from "@/lib/pipeline/counters";
import { Pipeline } from "@/lib/pipeline/pipeline";
import type { FakeProvider } from "../fakes/http";
import { startFakeOpenAI } from "../fakes/openai";
import { useSeededAppDatabase } from "../helpers/app-db";
import { testDbKinds } from "../helpers/db";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;
const heapAfterGc = () => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const MAX_ROWS = 40;
const LOAD_MS = 8_000;
const WORKERS = 24;
// Big enough that a backlog growing with the calls would show in the heap: each queued call keeps it (clipped
// at 8,000 characters) in its `request` audit event.
const MESSAGE = "x".repeat(7_000);

describe.each(testDbKinds)("the API ledger under sustained overload on %s", (kind) => {
  let app: Awaited<ReturnType<typeof useSeededAppDatabase>>;
  let db: Database;
  let upstream: FakeProvider;

  beforeAll(async () => {
    app = await useSeededAppDatabase(kind);
    db = app.db;
    upstream = await startFakeOpenAI();
  });
  afterAll(async () => {
    await upstream.close();
    await app.close();
  });

  it("keeps the backlog within its bound, memory flat, and one ledger row per answered call", async () => {
    const gateway = new Gateway(
      parseGatewayConfig(
        {
          providers: { up: { type: "openai", baseUrl: upstream.url } },
          models: { "team-gpt": { candidates: [{ provider: "up", model: "gpt-4o-mini" }] } },
          retry: { maxRetries: 0 },
        },
        "test",
        {},
      ),
    );
    const database = async () => db;
    // The slow writer: every batch waits 300 ms for its connection, so two writers of 5 calls a batch write
    // about 33 calls a second, far below what the handler serves.
    const slowDatabase = async () => {
      await sleep(300);
      return db;
    };
    const recorder = new BatchedGovernanceRecorder(slowDatabase, {
      maxRows: MAX_ROWS,
      maxTurns: 5,
      maxAgeMs: 60_000,
      writers: 2,
      admitWaitMs: 250,
    });
    const handler = webHandler(
      withLedgerBackpressure(
        recorder,
        createV1Core({
          db: database,
          gateway: () => gateway,
          pipeline: new Pipeline({
            db: database,
            gateway: () => gateway,
            counters: () => new PostgresCounters(database),
            cache: () => new PostgresResponseCache(database),
          }),
          recorder,
        }),
      ),
      { maxBytes: () => 1 << 20, tooLarge: refuseTooLarge },
    );
    const { secret, key } = await createApiKey(db, {
      tenantId: await app.tenantId("acme"),
      name: "overload",
      createdBy: await app.userId("admin@acme.test"),
    });

    const answered: string[] = [];
    let refused = 0;
    let other = 0;
    let retryAfter: string | null = null;
    const stopAt = Date.now() + LOAD_MS;
    const worker = async () => {
      while (Date.now() < stopAt) {
        const res = await handler(
          new Request("http://tollgate.test/v1/chat/completions", {
            method: "POST",
            headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
            body: JSON.stringify({ model: "team-gpt", messages: [{ role: "user", content: MESSAGE }] }),
          }),
        );
        const body = await res.text();
        if (res.status === 200) answered.push(res.headers.get("x-request-id")!);
        else if (res.status === 503) {
          refused += 1;
          retryAfter = res.headers.get("retry-after");
          expect(JSON.parse(body).error.code).toBe("ledger_backlog_full");
        } else other += 1;
      }
    };

    let maxWaiting = 0;
    let maxWaitingForRoom = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const s = recorder.stats();
        maxWaiting = Math.max(maxWaiting, s.rowsWaiting);
        maxWaitingForRoom = Math.max(maxWaitingForRoom, s.callsWaitingForRoom);
        await sleep(5);
      }
    })();
    const heap: { at: number; calls: number; bytes: number }[] = [];
    const heapSampler = (async () => {
      while (Date.now() < stopAt - 500) {
        await sleep(1_000);
        // The fake upstream keeps every request it saw: forget them, they are not Tollgate's memory.
        upstream.reset();
        heap.push({ at: Date.now(), calls: answered.length + refused, bytes: heapAfterGc() });
      }
    })();

    await Promise.all(Array.from({ length: WORKERS }, worker));
    sampling = false;
    await Promise.all([sampler, heapSampler]);

    // It was an overload: the backlog filled, calls waited for room, and some were refused with Retry-After.
    expect(other).toBe(0);
    expect(maxWaiting).toBe(MAX_ROWS);
    expect(maxWaitingForRoom).toBeGreaterThan(0);
    expect(refused).toBeGreaterThan(0);
    expect(retryAfter).toBe("1");

    // Memory stays flat: from the second sample on, the heap grows by far less than what the calls served in
    // between would hold if the backlog grew with them (each keeps its 7 KB message in its audit event).
    const first = heap[1]!;
    const last = heap.at(-1)!;
    const calls = last.calls - first.calls;
    expect(calls).toBeGreaterThan(100);
    expect(last.bytes - first.bytes).toBeLessThan(Math.max(8 * 1024 * 1024, (calls * MESSAGE.length) / 4));

    await recorder.flush();
    expect(recorder.stats()).toMatchObject({ rowsWaiting: 0, rowsFailed: 0, batchesInFlight: 0 });
    const rows = await db
      .select({ id: sysAgentTurn.id, n: sql<number>`count(*)::int` })
      .from(sysAgentTurn)
      .where(eq(sysAgentTurn.apiKeyId, key.id))
      .groupBy(sysAgentTurn.id);
    expect(rows.length).toBe(answered.length);
    expect(rows.every((r) => r.n === 1)).toBe(true);
    const found = await db
      .select({ id: sysAgentTurn.id })
      .from(sysAgentTurn)
      .where(inArray(sysAgentTurn.id, answered.slice(0, 1000)));
    expect(found.length).toBe(Math.min(answered.length, 1000));
  }, 60_000);
});
