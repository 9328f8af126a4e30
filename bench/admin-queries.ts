// The admin pages' queries (usage ledger, audit replay, cost dashboard) against 1,000,000 turns and ~5,000,000
// audit events in PostgreSQL: p50/p95 of each, side by side in one run, and the EXPLAIN of each.
//   npm run bench:admin [-- --turns 100000] [--days 30] [--keep] [--reuse tollgate_bench_123] [--no-report]
// `--days` spreads the history over that many days (default 30); a fresh database is partitioned by month (or by
// day with LEDGER_PARTITION_INTERVAL=day), and after the measurements retention of 30 days is applied and timed.
// `--convert` loads the history into the tables as they were before partitions (migrations up to 0021), then
// times migration 0022 converting them in place.
// It creates its own database (tollgate_bench_<pid>) on BENCH_DATABASE_URL (default: the local postgres), loads
// it with the sample-history generator, and drops it at the end unless --keep. --reuse measures a kept database.
//
// The SQL below is the contract for the page providers (features/admin-tables/server/providers): same shape, same
// ORDER BY, same LIMIT (page size 50, plus one row to know whether there is a next page).
import { parseArgs } from "node:util";
import { type SQL, sql } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import postgres from "postgres";
import { openDatabase } from "@/db/client";
import { migrateDatabase, migrationsBefore } from "@/db/migrate";
import { partitionInterval } from "@/db/partitions";
import { tenant as tenantTable } from "@/db/schema";
import {
  TAG_CARRIED_SETTINGS,
  tagCarriedSql,
  tenantModelsSql,
} from "@/features/admin-tables/server/providers/agent-turns";
import { generateSampleHistory, rowsOf } from "@/features/demo/server/sample-data";
import { seedDemo } from "@/features/demo/server/seed";
import { applyRetention, type RetentionResult } from "@/lib/governance/retention";
import { machine, median, quantile, writeSection } from "./report";

const { values } = parseArgs({
  options: {
    turns: { type: "string" },
    days: { type: "string" },
    convert: { type: "boolean", default: false },
    keep: { type: "boolean", default: false },
    reuse: { type: "string" },
    "no-report": { type: "boolean", default: false },
  },
});
const TURNS = Number(values.turns ?? process.env.BENCH_TURNS ?? 1_000_000);
const DAYS = Number(values.days ?? 30);
if (!Number.isInteger(DAYS) || DAYS < 1)
  throw new Error(`--days must be a whole number of days (got ${values.days})`);
const RETENTION_DAYS = 30;
const WARMUP = 5;
const RUNS = 30;
const PAGE = 50;
const COUNT_CAP = 10_000;
const DAY = 24 * 3600 * 1000;
const adminUrl = process.env.BENCH_DATABASE_URL || "postgres://postgres@127.0.0.1:5432/postgres";
const dbName = values.reuse ?? `tollgate_bench_${process.pid}`;
if (!/^[a-z0-9_]+$/.test(dbName)) throw new Error(`not a database name: ${dbName}`);
const dbUrl = new URL(adminUrl);
dbUrl.pathname = `/${dbName}`;
const log = (line: string) => process.stdout.write(`${line}\n`);

type Params = {
  tenant: string;
  now: Date;
  /** The keyset cursor: the last row of the first ledger page. */
  cursor: { startedAt: Date; id: string };
};
type Query = {
  key: string;
  title: string;
  target: number;
  build: (p: Params) => SQL;
  /** Statements that set what the query runs under (`set local`), in one transaction with it. */
  settings?: SQL[];
};

const LEDGER_ROW = sql.raw(`t.id, t.started_at, t.tenant_id, t.user_id, u.email as user_email, t.source,
  t.requested_model, t.served_adapter, t.served_model, t.status, t.input_tokens, t.cached_input_tokens,
  t.output_tokens, t.cost, t.latency_ms, t.first_token_ms, t.tool_trace, t.error_class, t.fallback_index`);
const AUDIT_ROW = sql.raw(
  "a.id, a.created_at, a.turn_id, a.seq, a.type, a.user_id, u.email as user_email, a.payload",
);
const since = (p: Params, days: number) => new Date(p.now.getTime() - days * DAY).toISOString();
const day = (p: Params, daysAgo: number) =>
  new Date(p.now.getTime() - daysAgo * DAY).toISOString().slice(0, 10);
const ledger = (
  where: SQL,
) => sql`select ${LEDGER_ROW} from sys_agent_turn t left join app_user u on u.id = t.user_id
  where ${where} order by t.started_at desc, t.id desc limit ${PAGE + 1}`;
const audit = (
  where: SQL,
) => sql`select ${AUDIT_ROW} from sys_agent_audit a left join app_user u on u.id = a.user_id
  where ${where} order by a.created_at desc, a.turn_id, a.seq limit ${PAGE + 1}`;
// The ledger's model filter ("gpt" finds every GPT model) is matched against the tenant's models first
// (`ledger.model.names`, agent-turns.ts servedModelFilter), then runs as the equality below; a text no model
// contains runs no ledger query at all.
const failedOn = (p: Params, model: string) => sql`t.tenant_id = ${p.tenant} and t.status = 'failed'
  and t.served_model = ${model} and t.started_at >= ${since(p, 7)} and t.started_at < ${p.now.toISOString()}`;
const failedMini = (p: Params) => failedOn(p, "gpt-4o-mini");
const dashboard = (p: Params) =>
  sql`d.tenant_id = ${p.tenant} and d.day between ${day(p, 29)} and ${day(p, 0)}`;
// The approximate count: exact up to the cap, then "10,000+" (the pages never need more to draw their pager).
const capped = (from: SQL) => sql`select count(*)::int as n from (select 1 ${from} limit ${COUNT_CAP + 1}) s`;

const QUERIES: Query[] = [
  {
    key: "ledger.page",
    title: "Ledger, first page",
    target: 100,
    build: (p) => ledger(sql`t.tenant_id = ${p.tenant}`),
  },
  {
    key: "ledger.page.filtered",
    title: "Ledger, failed + gpt-4o-mini, last 7 days",
    target: 150,
    build: (p) => ledger(failedMini(p)),
  },
  {
    // The worst case of that filter: a combination with no row at all (the offline model never fails).
    key: "ledger.page.filtered.none",
    title: "Ledger, failed + offline-demo (no match), 7 days",
    target: 150,
    build: (p) => ledger(failedOn(p, "offline-demo")),
  },
  {
    // The status segment alone (its index leaves out "success", about nine rows in ten).
    key: "ledger.page.status",
    title: "Ledger, failed, last 7 days",
    target: 150,
    build: (p) =>
      ledger(sql`t.tenant_id = ${p.tenant} and t.status = 'failed'
        and t.started_at >= ${since(p, 7)} and t.started_at < ${p.now.toISOString()}`),
  },
  {
    // "success" with a model: the tenant-and-model index, filtered by status.
    key: "ledger.page.success.model",
    title: "Ledger, success + claude-haiku-4-5, last 7 days",
    target: 150,
    build: (p) =>
      ledger(sql`t.tenant_id = ${p.tenant} and t.status = 'success' and t.served_model = 'claude-haiku-4-5'
        and t.started_at >= ${since(p, 7)} and t.started_at < ${p.now.toISOString()}`),
  },
  {
    key: "ledger.page.model.none",
    title: "Ledger, model no-such-model (no match), any status",
    target: 150,
    build: (p) => ledger(sql`t.tenant_id = ${p.tenant} and t.served_model = 'no-such-model'`),
  },
  {
    key: "ledger.model.names",
    title: "Ledger model filter: the tenant's models (skip scan)",
    target: 100,
    build: (p) => tenantModelsSql(p.tenant, "gpt-4o-mini"),
  },
  {
    // A tag no turn carries (the sample has none): the tag filter is resolved first (agent-turns.ts tagFilter),
    // by asking the partial GIN index alone whether any of the tenant's turns carries it; none does, so the page
    // runs no ledger query at all.
    key: "ledger.tag.carried",
    title: "Ledger tag filter: is the tag carried (no match)",
    target: 100,
    build: (p) => tagCarriedSql(p.tenant, "batch-7"),
    settings: [TAG_CARRIED_SETTINGS],
  },
  {
    // The page's query for a tag, had it not been resolved first: read the ledger newest first (0.8 s at 1M).
    key: "ledger.page.tag",
    title: "Ledger, tag (no match), unresolved",
    target: 150,
    build: (p) =>
      ledger(
        sql`t.tenant_id = ${p.tenant} and cardinality(t.tags) > 0 and t.tags @> array['batch-7']::text[]`,
      ),
  },
  {
    key: "ledger.page.tool",
    title: "Ledger, tool web_fetch, last 7 days",
    target: 150,
    build: (p) =>
      ledger(sql`t.tenant_id = ${p.tenant} and t.started_at >= ${since(p, 7)} and t.started_at < ${p.now.toISOString()}
        and t.tool_trace @> ${JSON.stringify([{ name: "web_fetch" }])}::jsonb`),
  },
  {
    key: "ledger.page.next",
    title: "Ledger, next page (keyset)",
    target: 100,
    build: (p) =>
      ledger(sql`t.tenant_id = ${p.tenant}
        and (t.started_at, t.id) < (${p.cursor.startedAt.toISOString()}::timestamptz, ${p.cursor.id}::uuid)`),
  },
  {
    key: "ledger.count",
    title: `Ledger count, capped at ${COUNT_CAP.toLocaleString("en-US")}`,
    target: 100,
    build: (p) => capped(sql`from sys_agent_turn t where t.tenant_id = ${p.tenant}`),
  },
  {
    key: "ledger.count.filtered",
    title: "Ledger count, failed + gpt-4o-mini, 7 days",
    target: 150,
    build: (p) => capped(sql`from sys_agent_turn t where ${failedMini(p)}`),
  },
  {
    key: "ledger.page.all",
    title: "Ledger, first page, all tenants (super admin)",
    target: 100,
    build: () => ledger(sql`true`),
  },
  {
    key: "audit.page",
    title: "Audit, first page",
    target: 100,
    build: (p) => audit(sql`a.tenant_id = ${p.tenant}`),
  },
  {
    key: "audit.page.filtered",
    title: "Audit, type tool_call, last 7 days",
    target: 150,
    build: (p) =>
      audit(sql`a.tenant_id = ${p.tenant} and a.type = 'tool_call' and a.created_at >= ${since(p, 7)}`),
  },
  {
    // Stands for a type the tenant had none of in the range (a week without a fallback or a refusal): every
    // type occurs in the sample data, so an absent value plays that part.
    key: "audit.page.filtered.none",
    title: "Audit, a type with no event in 7 days (worst case)",
    target: 150,
    build: (p) =>
      audit(sql`a.tenant_id = ${p.tenant} and a.type = 'none' and a.created_at >= ${since(p, 7)}`),
  },
  {
    key: "audit.page.rare",
    title: "Audit, type guardrail, last 7 days",
    target: 150,
    build: (p) =>
      audit(sql`a.tenant_id = ${p.tenant} and a.type = 'guardrail' and a.created_at >= ${since(p, 7)}`),
  },
  {
    key: "audit.page.all",
    title: "Audit, first page, all tenants (super admin)",
    target: 100,
    build: () => audit(sql`true`),
  },
  {
    key: "cost.metrics",
    title: "Cost: totals, last 30 days",
    target: 150,
    build: (p) => sql`select coalesce(sum(d.requests), 0)::bigint as requests,
      coalesce(sum(d.input_tokens), 0)::bigint as input_tokens, coalesce(sum(d.output_tokens), 0)::bigint as output_tokens,
      coalesce(sum(d.cost), 0)::text as cost from usage_daily d where ${dashboard(p)}`,
  },
  {
    key: "cost.chart.cost-by-model",
    title: "Cost: cost by model",
    target: 150,
    build: (p) => sql`select d.served_model as label, sum(d.cost)::text as value from usage_daily d
      where ${dashboard(p)} group by d.served_model order by sum(d.cost) desc limit 10`,
  },
  {
    key: "cost.chart.requests-by-user",
    title: "Cost: requests by user",
    target: 150,
    build: (p) => sql`select coalesce(u.name, d.user_id::text) as label, sum(d.requests)::bigint as value
      from usage_daily d left join app_user u on u.id = d.user_id
      where ${dashboard(p)} group by d.user_id, u.name order by 2 desc limit 10`,
  },
  {
    key: "cost.chart.input-by-model",
    title: "Cost: input tokens by model",
    target: 150,
    build: (p) => sql`select d.served_model as label, sum(d.input_tokens)::bigint as value from usage_daily d
      where ${dashboard(p)} group by d.served_model order by 2 desc limit 10`,
  },
];

// The indexes migration 0003 added after this benchmark showed the need for them; dropped first, so one run
// shows the queries without and with them (the schema as shipped).
const PROPOSED = [
  {
    name: "sys_agent_turn_tenant_status_model_idx",
    drizzle: `index("sys_agent_turn_tenant_status_model_idx").on(t.tenantId, t.status, t.servedModel, t.startedAt).where(sql\`\${t.status} <> 'success'\`)`,
    create:
      "create index sys_agent_turn_tenant_status_model_idx on sys_agent_turn (tenant_id, status, served_model, started_at) where status <> 'success'",
  },
  {
    name: "sys_agent_audit_tenant_type_created_idx",
    drizzle: `index("sys_agent_audit_tenant_type_created_idx").on(t.tenantId, t.type, t.createdAt)`,
    create:
      "create index sys_agent_audit_tenant_type_created_idx on sys_agent_audit (tenant_id, type, created_at)",
  },
];

const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
if (!values.reuse) await admin.unsafe(`create database ${dbName}`);
const handle = await openDatabase({ kind: "postgres", url: dbUrl.toString(), max: 4 });
const db = handle.db;
const one = async <T>(q: SQL) => rowsOf<T>(await db.execute(q))[0]!;
type Measured = { timings: Map<string, number[]>; rows: Map<string, number>; dashboard: number[] };

/** Warm-up rounds, then RUNS rounds in which every query runs once, in turn: all see the same machine. */
async function measure(params: Params): Promise<Measured> {
  const m: Measured = { timings: new Map(QUERIES.map((q) => [q.key, []])), rows: new Map(), dashboard: [] };
  for (let round = 0; round < WARMUP + RUNS; round++) {
    let dashboardMs = 0;
    for (const q of QUERIES) {
      const t = performance.now();
      const result = await run(q, params);
      const ms = performance.now() - t;
      if (q.key.startsWith("cost.")) dashboardMs += ms;
      if (round >= WARMUP) m.timings.get(q.key)!.push(ms);
      m.rows.set(q.key, q.key.includes("count") ? Number(result[0]?.n) : result.length);
    }
    if (round >= WARMUP) m.dashboard.push(dashboardMs);
  }
  return m;
}
/** A query's rows, under its settings (in a transaction) where it has some. */
async function run(q: Query, params: Params, wrap = (s: SQL) => s): Promise<Record<string, unknown>[]> {
  const statement = wrap(q.build(params));
  if (!q.settings) return rowsOf(await db.execute(statement));
  return db.transaction(async (tx) => {
    for (const setting of q.settings!) await tx.execute(setting);
    return rowsOf(await tx.execute(statement));
  });
}
async function explain(q: Query, params: Params): Promise<string> {
  const plan = (await run(q, params, (s) => sql`explain (analyze, buffers) ${s}`)) as {
    "QUERY PLAN": string;
  }[];
  return plan.map((r) => r["QUERY PLAN"]).join("\n");
}
async function planRows(statement: SQL): Promise<number> {
  const [row] = rowsOf<{ "QUERY PLAN": [{ Plan: { "Plan Rows": number } }] }>(
    await db.execute(sql`explain (format json) ${statement}`),
  );
  return row!["QUERY PLAN"][0].Plan["Plan Rows"];
}

try {
  let load: { ms: number; vacuumMs: number; convertMs?: number } | undefined;
  if (!values.reuse) {
    const old = values.convert ? migrationsBefore("_ledger_partitions") : undefined;
    await migrateDatabase(handle, old?.dir);
    await seedDemo(handle.db);
    log(`loading ${TURNS.toLocaleString("en-US")} turns into ${dbName}…`);
    const t0 = performance.now();
    const result = await generateSampleHistory(db, "postgres", { turns: TURNS, seed: 1, days: DAYS });
    const ms = performance.now() - t0;
    log(`loaded ${result.turns} turns, ${result.auditEvents} audit events in ${(ms / 1000).toFixed(1)} s`);
    // What autovacuum does soon after a bulk load in production: statistics, and the visibility map that
    // index-only scans (the capped count) rely on.
    const t1 = performance.now();
    await db.execute(sql`vacuum (analyze) sys_agent_turn, sys_agent_audit, usage_daily`);
    load = { ms, vacuumMs: performance.now() - t1 };
    if (old) {
      log("converting the loaded tables to partitions (migration 0022)…");
      const t2 = performance.now();
      await migrateDatabase(handle);
      load.convertMs = performance.now() - t2;
      old.remove();
      log(`converted in ${(load.convertMs / 1000).toFixed(1)} s`);
      await db.execute(sql`analyze sys_agent_turn, sys_agent_audit`);
    }
  }

  // A partitioned table's size is its partitions' (the parent has no storage of its own). With --reuse after a
  // run without --keep, the 0003 indexes are missing: they are made again first.
  for (const p of PROPOSED)
    await db.execute(sql.raw(p.create.replace("create index", "create index if not exists")));
  const bytes = (table: string) =>
    sql.raw(`(select sum(pg_total_relation_size(relid)) from pg_partition_tree('${table}'))`);
  const sizes = await one<Record<string, string>>(sql`select
    (select count(*) from sys_agent_turn)::text as turns, (select count(*) from sys_agent_audit)::text as audit,
    (select count(*) from usage_daily)::text as rollups, version() as version,
    pg_size_pretty(${bytes("sys_agent_turn")}) as turns_size, ${bytes("sys_agent_turn")}::text as turns_bytes,
    pg_size_pretty(${bytes("sys_agent_audit")}) as audit_size, ${bytes("sys_agent_audit")}::text as audit_bytes,
    pg_size_pretty(pg_total_relation_size('usage_daily')) as rollups_size,
    (select count(*) from pg_partition_tree('sys_agent_turn') where isleaf)::text as partitions,
    current_setting('shared_buffers') as shared_buffers`);
  // Sizes are the schema as shipped; then the queries run without the indexes 0003 added, and again with them.
  for (const p of PROPOSED) await db.execute(sql.raw(`drop index if exists ${p.name}`));
  // The largest tenant: the worst case for every tenant-scoped page.
  const tenant = await one<{ id: string; slug: string; turns: number; last: Date }>(
    sql`select t.id, t.slug, c.n::int as turns, c.last from tenant t join (select tenant_id, count(*) as n,
      max(started_at) as last from sys_agent_turn group by 1) c on c.tenant_id = t.id order by c.n desc limit 1`,
  );
  // "Now" is just after the newest turn, so a reused database measures the same windows.
  const now = new Date(new Date(tenant.last).getTime() + 5 * 60_000);
  const firstPage = rowsOf<{ id: string; started_at: Date }>(
    await db.execute(QUERIES[0]!.build({ tenant: tenant.id, now, cursor: { startedAt: now, id: "" } })),
  );
  const last = firstPage[PAGE - 1]!;
  const params: Params = {
    tenant: tenant.id,
    now,
    cursor: { startedAt: new Date(last.started_at), id: last.id },
  };

  log("measuring with the schema's indexes…");
  const before = await measure(params);
  const plans = new Map<string, string>();
  for (const q of QUERIES) plans.set(q.key, await explain(q, params));
  // What the planner's estimate would have said, for the count choice below.
  const estimate = await planRows(sql`select 1 from sys_agent_turn t where t.tenant_id = ${tenant.id}`);
  const estimateFiltered = await planRows(sql`select 1 from sys_agent_turn t where ${failedMini(params)}`);
  const exactFiltered = await one<{ n: number }>(
    sql`select count(*)::int as n from sys_agent_turn t where ${failedMini(params)}`,
  );

  log("measuring with the proposed indexes…");
  const built: string[] = [];
  for (const p of PROPOSED) {
    const t = performance.now();
    await db.execute(sql.raw(p.create));
    const size = await one<{ size: string }>(
      sql`select pg_size_pretty(sum(pg_relation_size(relid))) as size from pg_partition_tree(${p.name}::regclass)`,
    );
    built.push(`${((performance.now() - t) / 1000).toFixed(1)} s, ${size.size}`);
  }
  await db.execute(sql`analyze sys_agent_turn, sys_agent_audit`);
  const after = await measure(params);
  const plansAfter = new Map<string, string>();
  for (const q of QUERIES) plansAfter.set(q.key, await explain(q, params));
  if (!values.keep) for (const p of PROPOSED) await db.execute(sql.raw(`drop index ${p.name}`));

  // Retention last (it deletes): every tenant keeps 30 days; partitions before the cutoff go whole.
  let retention: { ms: number; result: RetentionResult } | undefined;
  if (!values.reuse) {
    await db.update(tenantTable).set({ retentionDays: RETENTION_DAYS });
    const t = performance.now();
    const result = await applyRetention(db, { now });
    retention = { ms: performance.now() - t, result };
    log(
      `retention of ${RETENTION_DAYS} days: ${(retention.ms / 1000).toFixed(2)} s, ${JSON.stringify({ ...result, partitions: result.partitions.length })}`,
    );
  }

  const f = (x: number) => x.toFixed(1);
  const n = (x: number | string) => Number(x).toLocaleString("en-US");
  const p95 = (m: Measured, key: string) => quantile(m.timings.get(key)!, 0.95);
  const verdict = (ms: number, target: number) => (ms <= target ? "pass" : "**MISS**");
  const line = (q: Query) => {
    const rows = before.rows.get(q.key) ?? 0;
    const shown = q.key.includes("count") && rows > COUNT_CAP ? `${n(COUNT_CAP)}+` : n(rows);
    const [b, a] = [p95(before, q.key), p95(after, q.key)];
    return `| ${q.title} | \`${q.key}\` | ${shown} | ${f(median(before.timings.get(q.key)!))} | ${f(b)} | ≤ ${q.target} | ${verdict(b, q.target)} | ${f(median(after.timings.get(q.key)!))} / ${f(a)} ${a <= q.target ? "" : "**MISS**"} |`;
  };
  const [dashBefore, dashAfter] = [quantile(before.dashboard, 0.95), quantile(after.dashboard, 0.95)];
  const misses = QUERIES.filter((q) => p95(before, q.key) > q.target);
  const dialect = new PgDialect();
  const details = QUERIES.map((q) => {
    const { sql: text, params: bound } = dialect.sqlToQuery(q.build(params));
    const changed = PROPOSED.some((p) => plansAfter.get(q.key)!.includes(p.name));
    return `<details><summary><code>${q.key}</code>: ${q.title}</summary>

\`\`\`sql
${text.replace(/\s+/g, " ").trim()}
-- ${JSON.stringify(bound)}
\`\`\`

With the schema's indexes:
\`\`\`
${plans.get(q.key)}
\`\`\`
${changed ? `\nWith the proposed indexes:\n\`\`\`\n${plansAfter.get(q.key)}\n\`\`\`\n` : ""}</details>`;
  }).join("\n\n");

  const body = `
## Admin pages' queries at scale (bench/admin-queries.ts)

${new Date().toISOString().slice(0, 10)} · ${machine()} · ${sizes.version?.split(" on ")[0]} (shared_buffers ${sizes.shared_buffers}, server defaults)

Data: ${n(sizes.turns!)} turns (${sizes.turns_size} with indexes, ${n(Math.round(Number(sizes.turns_bytes) / Number(sizes.turns)))} bytes a turn), ${n(sizes.audit!)} audit events (${sizes.audit_size}, ${n(Math.round(Number(sizes.audit_bytes) / Number(sizes.audit)))} bytes an event),
${n(sizes.rollups!)} daily rollup rows (${sizes.rollups_size}), over ${DAYS} days for the two demo tenants, in ${sizes.partitions} partitions of the ledger (by ${partitionInterval()}; the audit trail alike), from the
sample-history generator (\`lib/governance/sample-data.ts\`, seed 1). ${
    load
      ? `Loading took ${f(load.ms / 1000)} s (${n(Math.round(TURNS / (load.ms / 1000)))} turns/s with their audit events and rollups), then \`VACUUM (ANALYZE)\` ${f(load.vacuumMs / 1000)} s.${load.convertMs === undefined ? "" : ` The history was loaded into the tables as they were before partitions; migration 0022 then converted them in place in ${f(load.convertMs / 1000)} s (the old tables attached as one partition each: one read to validate the bound, and the new primary keys' indexes built).`}`
      : "Measured on a reused database (load time not measured in this run)."
  }
Every query is for the largest tenant (${tenant.slug}, ${n(tenant.turns)} turns) unless it says all tenants; wall time
in the client through Drizzle and postgres-js, as the page providers run them; ${WARMUP} warm-up rounds, then
${RUNS} rounds in which each query runs once, in turn, so all of them see the same machine. The last column repeats
the measurement with the two indexes of migration 0003 (dropped for the first columns): the schema as shipped.

| query | key | rows | without 0003: p50 (ms) | p95 (ms) | target p95 (ms) | | as shipped: p50 / p95 (ms) |
| --- | --- | --- | --- | --- | --- | --- | --- |
${QUERIES.map(line).join("\n")}
| **Cost dashboard: totals + 3 charts, one after another** | \`cost.*\` | | ${f(median(before.dashboard))} | ${f(dashBefore)} | ≤ 150 | ${verdict(dashBefore, 150)} | ${f(median(after.dashboard))} / ${f(dashAfter)} |

${misses.length ? `**Without migration 0003's indexes** ${misses.map((q) => `\`${q.key}\``).join(", ")} missed; the EXPLAIN below shows why (a scan of the tenant's whole date range, filtering row by row).` : "Every query meets its target even without migration 0003's indexes."} ${QUERIES.every((q) => p95(after, q.key) <= q.target) ? "**As shipped, every query meets its target.**" : "**As shipped, some queries still miss (marked).**"}

${
  retention
    ? `Retention of ${RETENTION_DAYS} days for every tenant, applied after the measurements: ${f(retention.ms / 1000)} s, ${retention.result.partitions.length} partitions dropped whole (${retention.result.partitions.join(", ") || "none"}), ${n(retention.result.turns)} turns and ${n(retention.result.auditEvents)} audit events deleted by rows (the boundary partition's), ${n(retention.result.rollupRows)} rollup rows.`
    : "Retention not measured (reused database)."
}

The indexes of migration 0003 (\`db/schema/turns.ts\`), measured above:
${PROPOSED.map((p, i) => `- \`${p.drizzle}\` (built in ${built[i]})`).join("\n")}

The ledger's count is exact up to ${n(COUNT_CAP)} and shown as "${n(COUNT_CAP)}+" beyond
(\`select count(*) from (select 1 … limit ${COUNT_CAP + 1})\`): it stops early, follows the page's filters, and
is exact where users compare small numbers. The planner's estimate is free but only as good as the statistics
once filters combine: here it said ${n(Math.round(estimate))} for the tenant (exact: ${n(tenant.turns)}) and
${n(Math.round(estimateFiltered))} for failed + gpt-4o-mini in 7 days (exact: ${n(exactFiltered.n)}).

${details}
`;
  if (!values["no-report"]) writeSection("admin-queries", body);
  log(body.split("\n<details>")[0]!);
} finally {
  await handle.close();
  if (!values.keep && !values.reuse) await admin.unsafe(`drop database if exists ${dbName} with (force)`);
  else log(`kept database ${dbName}`);
  await admin.end();
}
