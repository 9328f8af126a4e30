// The run's own database: created fresh on BENCH_DATABASE_URL's server, migrated, demo-seeded, dropped at the end.
// BENCH_REUSE_DATABASE=<name> runs on that database instead, as it is (migrated, its rows kept, not dropped), to
// measure the write path with a full ledger underneath: say, the one `npm run bench:admin -- --turns N --keep`
// leaves. Not a copy: a copy of a ledger of millions of rows would need its size again on disk (and on the replica).
import { eq, sql } from "drizzle-orm";
import postgres from "postgres";
import { openDatabase } from "@/db/client";
import { prepareDatabase } from "@/db/migrate";
import { appUser, guardrailPolicy, tenant, usageLimit } from "@/db/schema";
import { seedDemoData } from "@/features/demo/server";
import { createApiKey } from "@/features/keys/server/keys";
import type { GuardrailRule } from "@/lib/guardrails/types";

export type Handle = Awaited<ReturnType<typeof openDatabase>>;
/** `/v1` turns in the ledger by status, and their `request` audit events. */
export type LedgerCount = { total: number; byStatus: Record<string, number>; requestEvents: number };
/** A tenant API key: its secret for the Authorization header, its id for its ledger rows. */
export type BenchKey = { secret: string; id: string; tenantId: string };
/**
 * The run's keys: one per Tollgate path, so each path's rows can be counted while it runs (`pg` and `redis` under
 * all six limits, their counters in PostgreSQL and in Redis; `endUsers` under them and a template for each end
 * user of its calls); one for the load run.
 */
export type BenchKeys = {
  lean: BenchKey;
  pg: BenchKey;
  endUsers: BenchKey;
  guarded: BenchKey;
  leanRedis: BenchKey;
  redis: BenchKey;
  next: BenchKey;
  load: BenchKey;
};

/** The guarded key's policy: every deterministic check, on what goes to the model and on the answer. */
const BENCH_GUARDRAILS: GuardrailRule[] = [
  { id: "pii", name: "PII", stage: "input", check: { type: "pii" }, action: "redact", onError: "closed" },
  {
    id: "secrets",
    name: "Secrets",
    stage: "input",
    check: { type: "secrets" },
    action: "redact",
    onError: "closed",
  },
  {
    id: "injection",
    name: "Injection",
    stage: "input",
    check: { type: "injection" },
    action: "warn",
    onError: "closed",
  },
  {
    id: "terms",
    name: "Deny list",
    stage: "input",
    check: { type: "deny_list", terms: Array.from({ length: 50 }, (_, i) => `codename ${i}`) },
    action: "block",
    onError: "closed",
  },
  {
    id: "out-pii",
    name: "PII out",
    stage: "output",
    check: { type: "pii" },
    action: "redact",
    onError: "closed",
  },
];

export class BenchDatabase {
  readonly url: string;
  private created = false;
  /** The existing database the run uses as it is (BENCH_REUSE_DATABASE, when no name is given), or none. */
  readonly reused: string | undefined;
  readonly name: string;

  constructor(
    private readonly adminUrl: string,
    name?: string,
  ) {
    this.reused = name ? undefined : process.env.BENCH_REUSE_DATABASE || undefined;
    this.name = name ?? this.reused ?? `tollgate_bench_${process.pid}`;
    if (!/^[a-z0-9_]+$/.test(this.name)) throw new Error(`not a database name: ${this.name}`);
    const url = new URL(adminUrl);
    url.pathname = `/${this.name}`;
    this.url = url.toString();
  }

  /** Creates, migrates and seeds it (demo tenants, no sample history); returns a handle and the run's API keys. */
  async create(): Promise<{ handle: Handle; keys: BenchKeys }> {
    if (!this.reused) {
      const admin = postgres(this.adminUrl, { max: 1, onnotice: () => {} });
      this.created = true;
      await admin.unsafe(`create database ${this.name}`);
      await admin.end();
    }
    const handle = await openDatabase({ kind: "postgres", url: this.url, max: 2 });
    await prepareDatabase(handle, { afterMigrations: (h) => seedDemoData(h, { sampleTurns: 0 }) });
    const db = handle.db;
    const [acme] = await db.select({ id: tenant.id }).from(tenant).where(eq(tenant.slug, "acme"));
    const [user] = await db
      .select({ id: appUser.id })
      .from(appUser)
      .where(eq(appUser.email, "admin@acme.test"));
    const key = async (name: string): Promise<BenchKey> => {
      const { secret, key } = await createApiKey(db, { tenantId: acme!.id, name, createdBy: user!.id });
      return { secret, id: key.id, tenantId: acme!.id };
    };
    // Guardrails are a tenant's policy: the guarded key is Globex's, whose policy has every deterministic rule on
    // (Acme's keys, the other columns, have none).
    const [globex] = await db.select({ id: tenant.id }).from(tenant).where(eq(tenant.slug, "globex"));
    const [globexAdmin] = await db
      .select({ id: appUser.id })
      .from(appUser)
      .where(eq(appUser.email, "admin@globex.test"));
    const guarded = await createApiKey(db, {
      tenantId: globex!.id,
      name: "bench guardrails on",
      createdBy: globexAdmin!.id,
    });
    await db.insert(guardrailPolicy).values({
      tenantId: globex!.id,
      rules: BENCH_GUARDRAILS,
      updatedBy: globexAdmin!.id,
    });
    const keys = {
      lean: await key("bench lean"),
      pg: await key("bench governed, PostgreSQL counters"),
      endUsers: await key("bench governed with an end-user template"),
      guarded: { secret: guarded.secret, id: guarded.key.id, tenantId: globex!.id },
      leanRedis: await key("bench lean, Redis server"),
      redis: await key("bench governed, Redis counters"),
      next: await key("bench next"),
      load: await key("bench load"),
    };
    // The governed keys' own limits: requests and tokens per minute and daily and monthly budgets, soft and hard,
    // far above what the run spends, so every call passes every check and pays for it.
    const allSix = {
      requestsPerMinute: 10_000_000,
      tokensPerMinute: 1_000_000_000,
      dailySoftUsd: "100000",
      dailyHardUsd: "1000000",
      monthlySoftUsd: "1000000",
      monthlyHardUsd: "10000000",
      updatedBy: user!.id,
    };
    for (const governed of [keys.pg, keys.endUsers, keys.redis])
      await db
        .insert(usageLimit)
        .values({ tenantId: acme!.id, scope: "key", subjectId: governed.id, ...allSix });
    // The same six for each end user of the endUsers key's calls, on each end user's own counters.
    await db.insert(usageLimit).values({
      tenantId: acme!.id,
      scope: "end_user_template",
      subjectId: keys.endUsers.id,
      ...allSix,
    });
    return { handle, keys };
  }

  async drop(): Promise<void> {
    if (!this.created) return;
    const admin = postgres(this.adminUrl, { max: 1, onnotice: () => {} });
    await admin.unsafe(`drop database if exists ${this.name} with (force)`).catch((e) => say(String(e)));
    await admin.end();
  }

  async serverVersion(): Promise<string> {
    const admin = postgres(this.adminUrl, { max: 1, onnotice: () => {} });
    try {
      const [r] = await admin<{ v: string }[]>`select split_part(version(), ' on ', 1) as v`;
      return r?.v ?? "";
    } finally {
      await admin.end();
    }
  }
}

/** The run's keys' `/v1` turns (only theirs: a reused database may hold millions of others). */
export async function countLedger(handle: Handle, keys: BenchKeys): Promise<LedgerCount> {
  const db = handle.db;
  const all = Object.values(keys);
  const tenants = [...new Set(all.map((k) => k.tenantId))];
  const ours = sql`t.tenant_id in (${sql.join(
    tenants.map((id) => sql`${id}::uuid`),
    sql`, `,
  )}) and t.api_key_id in (${sql.join(
    all.map((k) => sql`${k.id}::uuid`),
    sql`, `,
  )}) and t.source = 'api'`;
  const rows = await db.execute<{ status: string; n: number }>(
    sql`select t.status, count(*)::int as n from sys_agent_turn t where ${ours} group by t.status`,
  );
  const list = listOf<{ status: string; n: number }>(rows);
  const audit = await db.execute<{ n: number }>(
    sql`select count(*)::int as n from sys_agent_audit a join sys_agent_turn t on t.id = a.turn_id where ${ours} and a.type = 'request'`,
  );
  const a = listOf<{ n: number }>(audit);
  return {
    total: list.reduce((s, r) => s + r.n, 0),
    byStatus: Object.fromEntries(list.map((r) => [r.status, r.n])),
    requestEvents: a[0]?.n ?? 0,
  };
}

/** What a reused database holds before the run: all turns and audit events. */
export async function storedRows(handle: Handle): Promise<{ turns: number; events: number }> {
  const rows = await handle.db.execute<{ turns: number; events: number }>(
    sql`select (select count(*) from sys_agent_turn)::int as turns, (select count(*) from sys_agent_audit)::int as events`,
  );
  const [r] = listOf<{ turns: number; events: number }>(rows);
  return { turns: Number(r?.turns ?? 0), events: Number(r?.events ?? 0) };
}

/** Ledger rows written so far under one API key (the index on tenant, key and start time answers it). */
export async function rowsOfKey(handle: Handle, key: BenchKey): Promise<number> {
  const rows = await handle.db.execute<{ n: number }>(
    sql`select count(*)::int as n from sys_agent_turn where tenant_id = ${key.tenantId} and api_key_id = ${key.id}`,
  );
  return listOf<{ n: number }>(rows)[0]?.n ?? 0;
}

/** One API key's ledger rows: how many by status, and their ids (to match with the answers' x-request-id). */
export async function ledgerOfKey(
  handle: Handle,
  key: BenchKey,
): Promise<{ byStatus: Record<string, number>; rows: { id: string; status: string }[] }> {
  const rows = await handle.db.execute<{ id: string; status: string }>(
    sql`select id::text as id, status from sys_agent_turn where tenant_id = ${key.tenantId} and api_key_id = ${key.id}`,
  );
  const list = listOf<{ id: string; status: string }>(rows);
  const byStatus: Record<string, number> = {};
  for (const r of list) byStatus[r.status] = (byStatus[r.status] ?? 0) + 1;
  return { byStatus, rows: list };
}

/** The rows of a raw query, whichever driver answered it (postgres.js gives an array, others `{ rows }`). */
const listOf = <T>(result: unknown): T[] =>
  (Array.isArray(result) ? result : (result as { rows: unknown[] }).rows) as T[];

const say = (line: string) => process.stderr.write(`${line}\n`);
