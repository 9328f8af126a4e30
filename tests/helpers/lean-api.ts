import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { eq } from "drizzle-orm";
import type { Database } from "@/db";
import { sysAgentAudit, sysAgentTurn } from "@/db/schema";
import { createV1Core, v1WebHandler } from "@/features/v1/server/handler";
import type { Gateway } from "@/lib/gateway/gateway";
import { BatchedGovernanceRecorder } from "@/lib/governance/batched-recorder";
import { PostgresResponseCache } from "@/lib/pipeline/cache-store";
import { type CounterStore, PostgresCounters } from "@/lib/pipeline/counters";
import { Pipeline, type PipelineDeps } from "@/lib/pipeline/pipeline";
import { serveApi } from "@/server/serve";

/**
 * The /v1 handler behind the lean server on a free port, over a test's database and gateway, with the batched
 * recorder the product uses (flush it before reading the ledger).
 */
export async function startLeanApi(
  database: Database,
  gateway: Gateway,
  counters?: CounterStore,
  guardrails?: PipelineDeps["guardrails"],
) {
  const db = async () => database;
  const recorder = new BatchedGovernanceRecorder(db);
  const store = counters ?? new PostgresCounters(db);
  const pipeline = new Pipeline({
    db,
    gateway: () => gateway,
    counters: () => store,
    cache: () => new PostgresResponseCache(db),
    guardrails,
  });
  const core = createV1Core({ db, gateway: () => gateway, pipeline, recorder });
  const server = createServer(serveApi(core));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    /** http://127.0.0.1:port (OpenAI's clients take `${root}/v1`, Anthropic's the root). */
    root: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    recorder,
    counters: store,
    /** The pipeline behind it, for calls made the drawer's way (messages, no wire body). */
    pipeline,
    /** The same handler as Next's route mounts it (a Web Request in, a Web Response out). */
    web: v1WebHandler(core),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A /v1 call's ledger row, once the batched recorder has written what it holds. */
export async function ledgerRowOf(database: Database, recorder: BatchedGovernanceRecorder, id: string) {
  await recorder.flush();
  const [row] = await database.select().from(sysAgentTurn).where(eq(sysAgentTurn.id, id));
  return row!;
}

/** A /v1 call's audit events in order, once the batched recorder has written what it holds. */
export async function auditEventsOf(database: Database, recorder: BatchedGovernanceRecorder, id: string) {
  await recorder.flush();
  return database.select().from(sysAgentAudit).where(eq(sysAgentAudit.turnId, id)).orderBy(sysAgentAudit.seq);
}
