// The governed tenant of the run: a hard daily budget on the tenant, a requests-per-minute limit on its one key,
// written as rows the way the Limits page would (usage_limit), plus what its ledger and counters say afterwards.
import { sql } from "drizzle-orm";
import { appUser, tenant, usageLimit } from "@/db/schema";
import { createApiKey } from "@/features/keys/server/keys";
import type { BenchKey, Handle } from "../overhead/database";
import { LIMITS } from "./plan";

export async function createGovernedTenant(handle: Handle): Promise<BenchKey> {
  const db = handle.db;
  const [t] = await db
    .insert(tenant)
    .values({ name: "Bench multi-instance", slug: `bench-multi-${process.pid}` })
    .returning({ id: tenant.id });
  const [u] = await db
    .insert(appUser)
    .values({ email: `bench-multi-${process.pid}@bench.test`, name: "Bench multi-instance" })
    .returning({ id: appUser.id });
  const tenantId = t!.id;
  const { secret, key } = await createApiKey(db, { tenantId, name: "bench multi", createdBy: u!.id });
  await db.insert(usageLimit).values([
    { tenantId, scope: "tenant", subjectId: tenantId, dailyHardUsd: LIMITS.dailyHardUsd, updatedBy: u!.id },
    {
      tenantId,
      scope: "key",
      subjectId: key.id,
      requestsPerMinute: LIMITS.requestsPerMinute,
      updatedBy: u!.id,
    },
  ]);
  return { secret, id: key.id, tenantId };
}

/** One ledger row of the key: its id (the answer's x-request-id), when it started, its status, cost and error. */
export type LedgerRow = {
  id: string;
  startedAtMs: number;
  status: string;
  cost: string | null;
  errorClass: string | null;
};

export async function ledgerRows(handle: Handle, key: BenchKey): Promise<LedgerRow[]> {
  const rows = await handle.db.execute<{
    id: string;
    started: string;
    status: string;
    cost: string | null;
    error_class: string | null;
  }>(
    sql`select id::text as id, (extract(epoch from started_at) * 1000)::bigint::text as started, status,
        cost::text as cost, error_class from sys_agent_turn
        where tenant_id = ${key.tenantId} and api_key_id = ${key.id}`,
  );
  const list = (Array.isArray(rows) ? rows : (rows as { rows: unknown[] }).rows) as {
    id: string;
    started: string;
    status: string;
    cost: string | null;
    error_class: string | null;
  }[];
  return list.map((r) => ({
    id: r.id,
    startedAtMs: Number(r.started),
    status: r.status,
    cost: r.cost,
    errorClass: r.error_class,
  }));
}

/** What the PostgreSQL counters hold for the tenant's daily budget (nano-dollars), when they are in use. */
export async function postgresBudgetCounter(handle: Handle, key: BenchKey): Promise<number | null> {
  const rows = await handle.db.execute<{ value: string }>(
    sql`select value::text as value from usage_counter
        where tenant_id = ${key.tenantId} and key like ${`usd:tenant:${key.tenantId}:d:%`}`,
  );
  const list = (Array.isArray(rows) ? rows : (rows as { rows: unknown[] }).rows) as { value: string }[];
  return list.length ? list.reduce((s, r) => s + Number(r.value), 0) : null;
}
