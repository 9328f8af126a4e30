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
import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { parseArgs } from "node:util";
import { type SQL, sql } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import { drizzle } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { installDatabase } from "@/db";
import { type Database, openDatabase } from "@/db/client";
import { migrateDatabase, migrationsBefore } from "@/db/migrate";
import { partitionInterval } from "@/db/partitions";
import * as schema from "@/db/schema";
import { tenant as tenantTable } from "@/db/schema";
import type { PageQuery, ProviderContext } from "@/features/admin-tables/contracts";
import { PageCatalog } from "@/features/admin-tables/server";
import {
  agentTurnsProvider,
  TAG_CARRIED_SETTINGS,
  tagCarriedSql,
  tenantModelsSql,
} from "@/features/admin-tables/server/providers/agent-turns";
import { generateSampleHistory, rowsOf } from "@/features/demo/server/sample-data";
import { seedDemo } from "@/features/demo/server/seed";
import { readAdminHome, readMemberHome } from "@/features/home/server";
import { modelQuality } from "@/features/scores/server";
import { loadUserContext, type UserContext } from "@/lib/auth/users";
import { applyRetention, type RetentionResult } from "@/lib/governance/retention";
import { PostgresCounters } from "@/lib/pipeline/counters";
import { machine, median, quantile, writeSection } from "./report";

const { values } = parseArgs({
  options: {
    turns: { type: "string" },
    days: { type: "string" },
    convert: { type: "boolean", default: false },
    keep: { type: "boolean", default: false },
    reuse: { type: "string" },
    "no-report": { type: "boolean", default: false },
    "no-audit": { type: "boolean", default: false },
    only: { type: "string" },
    "as-shipped": { type: "boolean", default: false },
    skip: { type: "string" },
  },
});
const keyList = (v: string | undefined) => (v ? v.split(",").filter(Boolean) : []);
const [ONLY, SKIP] = [keyList(values.only), keyList(values.skip)];
// --no-audit: the ledger and rollups only (10M turns with their audit trail would not fit the disk); the audit
// queries are then not measured. --only / --skip: comma-separated key prefixes of the queries to run.
// --as-shipped: one pass with the schema's indexes (not a first one without migration 0003's).
const TURNS = Number(values.turns ?? process.env.BENCH_TURNS ?? 1_000_000);
const DAYS = Number(values.days ?? 30);
if (!Number.isInteger(DAYS) || DAYS < 1)
  throw new Error(`--days must be a whole number of days (got ${values.days})`);
const RETENTION_DAYS = 30;
const WARMUP = 5;
const RUNS = 30;
const PAGE = 50;
const COUNT_CAP = 10_000;
/** A query slower than this in its first warm-up round gets one warm-up and SLOW_RUNS rounds, not all of them. */
const SLOW_MS = 1_000;
const SLOW_RUNS = 5;
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
  /** The tenant's admin and one of its members, as their sessions load them (for the home). */
  admin: UserContext;
  member: UserContext;
};
type Query = {
  key: string;
  title: string;
  target: number;
  /** The statement, built as the provider builds it (the contract above)… */
  build?: (p: Params) => SQL;
  /** …or the product's own function, called with the bench database: what a page really runs. */
  call?: (p: Params) => Promise<Record<string, unknown>[]>;
  /** A call of several statements: each is also measured alone (replayed as sent) and explained. */
  statements?: boolean;
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
  // The ledger's score filters and Feedback column through the ledger's own provider (agent-turns.ts): its page
  // selects every field, the Feedback and Scores subqueries included, for the page's rows.
  ...(
    [
      ["page", "Ledger page (provider): Feedback and Scores columns on its 51 rows", {}],
      ["feedback.down", "Ledger page (provider), feedback = down", { feedback: "down" }],
      ["feedback.any", "Ledger page (provider), feedback = any", { feedback: "any" }],
      ["score.lt", "Ledger page (provider), score helpfulness<0.5", { score: "helpfulness<0.5" }],
      ["score.none", "Ledger page (provider), score helpfulness>1 (no match)", { score: "helpfulness>1" }],
      [
        "score.unknown",
        "Ledger page (provider), score no-such-score<0.5 (no match)",
        { score: "no-such-score<0.5" },
      ],
    ] as const
  ).map(
    ([key, title, filters]): Query => ({
      key: `scores.ledger.${key}`,
      title,
      target: 100,
      call: async (p) => (await ledgerProvider.rows(scoped(p), pageQuery(filters))).rows,
      statements: true,
    }),
  ),
  {
    key: "scores.ledger.count.down",
    title: "Ledger count (provider), feedback = down",
    target: 100,
    call: async (p) => [
      { n: (await ledgerProvider.count(scoped(p), pageQuery({ feedback: "down" }))).count },
    ],
  },
  {
    key: "scores.quality.model",
    title: "Quality by model, 30 days (modelQuality)",
    target: 100,
    call: async (p) => modelQuality(db, p.tenant, 30, p.now),
    statements: true,
  },
  {
    key: "home.admin",
    title: "Home, tenant admin (readAdminHome, all of it)",
    target: 100,
    call: async (p) => [await readAdminHome(homeSources, p.admin, p.now.getTime())],
    statements: true,
  },
  {
    key: "home.member",
    title: "Home, member (readMemberHome, all of it)",
    target: 100,
    call: async (p) => [await readMemberHome(homeSources, p.member, p.now.getTime())],
    statements: true,
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

/** The queries this run measures: without audit events the audit queries are left out; then --only and --skip. */
let measured: Query[] = QUERIES;

const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
if (!values.reuse) await admin.unsafe(`create database ${dbName}`);
const handle = await openDatabase({ kind: "postgres", url: dbUrl.toString(), max: 4 });
// The measured reads go through a Drizzle of their own whose logger can record what a call sent (to explain it).
const client = postgres(dbUrl.toString(), { max: 4, onnotice: () => {} });
type Sent = { query: string; params: unknown[] };
let recording: Sent[] | null = null;
const db = drizzle(client, {
  schema,
  logger: { logQuery: (query, params) => recording?.push({ query, params }) },
}) as unknown as Database;
// The product's own code paths read the process's database: this one.
installDatabase(async () => ({ ...handle, db }));
const ledgerProvider = agentTurnsProvider(async () => db);
const homeSources = {
  db,
  counters: new PostgresCounters(async () => db),
  pages: PageCatalog.load({ listTools: () => [] }),
};
const scoped = (p: Params): ProviderContext => ({ tenantId: p.tenant, superAdmin: false });
const pageQuery = (filters: Record<string, string>): PageQuery => ({
  filters,
  segment: null,
  sort: { field: "startedAt", direction: "desc" },
  cursor: null,
  limit: PAGE,
});
const one = async <T>(q: SQL) => rowsOf<T>(await db.execute(q))[0]!;
type Measured = {
  timings: Map<string, number[]>;
  rows: Map<string, number>;
  dashboard: number[];
  slow: Set<string>;
};

// The scores' shares of the turns: people's thumbs (a third of them down), an app's numeric score over the API,
// and two evaluators' scores, as putScore and recordEvalScores write them (no configs: the demo tenants have none).
const THUMBS_SHARE = 0.02;
const HELPFULNESS_SHARE = 0.01;
const EVAL_SHARE = 0.005;
/**
 * Scores on the loaded turns, unless the database has some already (a reused one): one INSERT … SELECT a day of
 * ledger, each after setseed (and without parallel workers), so the same ledger gets the same scores.
 */
async function loadScores(): Promise<{ ms: number; rows: number; thumbsDown: number } | null> {
  const [has] = rowsOf<{ any: boolean }>(await db.execute(sql`select exists (select 1 from score) as any`));
  if (has?.any) return null;
  const t0 = performance.now();
  const range = await one<{ from: Date; to: Date }>(
    sql`select min(started_at) as from, max(started_at) as to from sys_agent_turn`,
  );
  const evalRun = "00000000-0000-4000-8000-00000000e0a1";
  for (
    let from = new Date(range.from).getTime(), i = 0;
    from <= new Date(range.to).getTime();
    from += DAY, i++
  ) {
    const [a, b] = [new Date(from).toISOString(), new Date(from + DAY).toISOString()];
    await db.transaction(async (tx) => {
      await tx.execute(
        sql`select set_config('max_parallel_workers_per_gather', '0', true), setseed(${(i % 1000) / 1000}::float8)`,
      );
      await tx.execute(sql`insert into score (id, tenant_id, turn_id, run_id, name, type, value, source, user_id,
          api_key_id, eval_run_id, created_at, updated_at, turn_started_at, turn_model)
        select gen_random_uuid(), t.tenant_id, t.id, t.run_id, k.name, k.type, k.value, k.source, k.user_id,
          k.api_key_id, k.eval_run_id, t.started_at + k.after, t.started_at + k.after, t.started_at, t.served_model
        from (select t.*, random() as r1, random() as r2, random() as r3, random() as v2, random() as v3
          from sys_agent_turn t where t.started_at >= ${a} and t.started_at < ${b} and t.status <> 'running') t
        cross join lateral (values
          ('thumbs', 'boolean', case when t.r1 < ${THUMBS_SHARE / 3} then 0 else 1 end::float8, 'human', t.user_id,
            null::uuid, null::uuid, interval '2 minutes', t.r1 < ${THUMBS_SHARE} and t.user_id is not null),
          ('helpfulness', 'numeric', round(t.v2::numeric, 2)::float8, 'api', null, t.api_key_id, null,
            interval '1 minute', t.r2 < ${HELPFULNESS_SHARE}),
          (case when t.v3 < 0.5 then 'eval:llm_judge' else 'eval:exact_match' end, 'numeric',
            case when t.v3 < 0.5 then round(t.v3::numeric * 2, 2)::float8 else floor(t.v3 * 2 - 1 + 0.5)::float8 end,
            'eval', null, null, ${evalRun}::uuid, interval '5 minutes', t.r3 < ${EVAL_SHARE})
        ) k(name, type, value, source, user_id, api_key_id, eval_run_id, after, keep)
        where k.keep`);
    });
  }
  await db.execute(sql`vacuum (analyze) score`);
  const counts = await one<{ rows: number; down: number }>(
    sql`select count(*)::int as rows, count(*) filter (where name = 'thumbs' and value = 0)::int as down from score`,
  );
  return { ms: performance.now() - t0, rows: counts.rows, thumbsDown: counts.down };
}

/** Warm-up rounds, then RUNS rounds in which every query runs once, in turn: all see the same machine. */
async function measure(params: Params): Promise<Measured> {
  const m: Measured = {
    timings: new Map(measured.map((q) => [q.key, []])),
    rows: new Map(),
    dashboard: [],
    slow: new Set(),
  };
  for (let round = 0; round < WARMUP + RUNS; round++) {
    let dashboardMs = 0;
    for (const q of measured) {
      const slow = m.slow.has(q.key);
      if (slow && (round < WARMUP || m.timings.get(q.key)!.length >= SLOW_RUNS)) continue;
      const t = performance.now();
      const result = await run(q, params);
      const ms = performance.now() - t;
      if (round === 0 && ms > SLOW_MS) m.slow.add(q.key);
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
  if (q.call) return q.call(params);
  const statement = wrap(q.build!(params));
  if (!q.settings) return rowsOf(await db.execute(statement));
  return db.transaction(async (tx) => {
    for (const setting of q.settings!) await tx.execute(setting);
    return rowsOf(await tx.execute(statement));
  });
}
async function explain(q: Query, params: Params): Promise<string> {
  if (q.key.includes("#")) return ""; // a call's statement: explained with its call
  if (q.call) {
    const sent = await record(q, params);
    const plans: string[] = [];
    for (const [i, s] of sent.entries()) {
      const rows = await client.unsafe(`explain (analyze, buffers) ${s.query}`, s.params as never[]);
      plans.push(
        `-- statement ${i + 1}: ${oneLine(s.query)}\n-- ${JSON.stringify(s.params)}\n${rows.map((r) => r["QUERY PLAN"]).join("\n")}`,
      );
    }
    return plans.join("\n\n");
  }
  const plan = (await run(q, params, (s) => sql`explain (analyze, buffers) ${s}`)) as {
    "QUERY PLAN": string;
  }[];
  return plan.map((r) => r["QUERY PLAN"]).join("\n");
}
/** The statements one call of `q` sent, in the order it sent them. */
async function record(q: Query, params: Params): Promise<Sent[]> {
  recording = [];
  try {
    await q.call!(params);
    return recording;
  } finally {
    recording = null;
  }
}
const oneLine = (text: string) => text.replace(/\s+/g, " ").trim();
/** A call's statements, each as a query of its own that replays it exactly as sent. */
async function statementsOf(q: Query, params: Params): Promise<Query[]> {
  const sent = await record(q, params);
  return sent.map((s, i) => ({
    key: `${q.key}#${i + 1}`,
    title: `${q.title}, statement ${i + 1}: \`${oneLine(s.query).slice(0, 70)}…\``,
    target: q.target,
    call: async () => [...(await client.unsafe(s.query, s.params as never[]))],
  }));
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
    const result = await generateSampleHistory(db, "postgres", {
      turns: TURNS,
      seed: 1,
      days: DAYS,
      auditEvents: !values["no-audit"],
    });
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
  } else {
    // A kept database is brought to this checkout's schema (the migrations it lacks, with their backfills).
    const t0 = performance.now();
    await migrateDatabase(handle);
    log(`migrated ${dbName} in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    await db.execute(sql`vacuum (analyze) score`);
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
  measured = QUERIES.filter(
    (q) =>
      (Number(sizes.audit) > 0 || !q.key.startsWith("audit.")) &&
      (!ONLY.length || ONLY.some((k) => q.key.startsWith(k))) &&
      !SKIP.some((k) => q.key.startsWith(k)),
  );
  // Sizes are the schema as shipped; then the queries run without the indexes 0003 added, and again with them.
  if (!values["as-shipped"])
    for (const p of PROPOSED) await db.execute(sql.raw(`drop index if exists ${p.name}`));
  // The largest tenant: the worst case for every tenant-scoped page.
  const tenant = await one<{ id: string; slug: string; turns: number; last: Date }>(
    sql`select t.id, t.slug, c.n::int as turns, c.last from tenant t join (select tenant_id, count(*) as n,
      max(started_at) as last from sys_agent_turn group by 1) c on c.tenant_id = t.id order by c.n desc limit 1`,
  );
  // "Now" is just after the newest turn, so a reused database measures the same windows.
  const now = new Date(new Date(tenant.last).getTime() + 5 * 60_000);
  // The home's two views: the tenant's first admin, and its busiest member (their own usage is the largest).
  const people = await one<{ admin: string; member: string }>(sql`select
    (select m.user_id from membership m join app_user u on u.id = m.user_id
      where m.tenant_id = ${tenant.id} and m.role = 'admin' order by u.email limit 1) as admin,
    (select m.user_id from membership m left join usage_daily d on d.tenant_id = m.tenant_id and d.user_id = m.user_id
      where m.tenant_id = ${tenant.id} and m.role = 'member' group by m.user_id
      order by coalesce(sum(d.requests), 0) desc, m.user_id limit 1) as member`);
  const contextOf = async (userId: string) => (await loadUserContext(db, userId, tenant.id))!;
  const [adminUser, memberUser] = [await contextOf(people.admin), await contextOf(people.member)];
  const firstPage = rowsOf<{ id: string; started_at: Date }>(
    await db.execute(
      QUERIES[0]!.build!({
        tenant: tenant.id,
        now,
        cursor: { startedAt: now, id: "" },
        admin: adminUser,
        member: memberUser,
      }),
    ),
  );
  const last = firstPage[PAGE - 1]!;
  const params: Params = {
    tenant: tenant.id,
    now,
    cursor: { startedAt: new Date(last.started_at), id: last.id },
    admin: adminUser,
    member: memberUser,
  };
  const scoresLoad = await loadScores();
  if (scoresLoad) log(`scores: ${scoresLoad.rows} rows in ${(scoresLoad.ms / 1000).toFixed(1)} s`);
  // A call of several statements is measured whole, then each of its statements alone.
  const expanded: Query[] = [];
  for (const q of measured) expanded.push(q, ...(q.statements ? await statementsOf(q, params) : []));
  measured = expanded;

  log("measuring with the schema's indexes…");
  const before = await measure(params);
  const plans = new Map<string, string>();
  for (const q of measured) plans.set(q.key, await explain(q, params));
  // What the planner's estimate would have said, for the count choice below.
  const estimate = await planRows(sql`select 1 from sys_agent_turn t where t.tenant_id = ${tenant.id}`);
  const estimateFiltered = await planRows(sql`select 1 from sys_agent_turn t where ${failedMini(params)}`);
  const exactFiltered = await one<{ n: number }>(
    sql`select count(*)::int as n from sys_agent_turn t where ${failedMini(params)}`,
  );

  log("measuring with the proposed indexes…");
  const built: string[] = [];
  for (const p of values["as-shipped"] ? [] : PROPOSED) {
    const t = performance.now();
    await db.execute(sql.raw(p.create));
    const size = await one<{ size: string }>(
      sql`select pg_size_pretty(sum(pg_relation_size(relid))) as size from pg_partition_tree(${p.name}::regclass)`,
    );
    built.push(`${((performance.now() - t) / 1000).toFixed(1)} s, ${size.size}`);
  }
  if (!values["as-shipped"]) await db.execute(sql`analyze sys_agent_turn, sys_agent_audit`);
  const after = values["as-shipped"] ? before : await measure(params);
  const plansAfter = values["as-shipped"] ? plans : new Map<string, string>();
  if (!values["as-shipped"]) for (const q of measured) plansAfter.set(q.key, await explain(q, params));
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
    const rounds = before.slow.has(q.key) ? ` (${SLOW_RUNS} rounds: over ${SLOW_MS / 1000} s)` : "";
    return `| ${q.title}${rounds} | \`${q.key}\` | ${shown} | ${f(median(before.timings.get(q.key)!))} | ${f(b)} | ≤ ${q.target} | ${verdict(b, q.target)} | ${f(median(after.timings.get(q.key)!))} / ${f(a)} ${a <= q.target ? "" : "**MISS**"} |`;
  };
  const [dashBefore, dashAfter] = [quantile(before.dashboard, 0.95), quantile(after.dashboard, 0.95)];
  const misses = measured.filter((q) => p95(before, q.key) > q.target);
  const dialect = new PgDialect();
  const details = measured
    .filter((q) => !q.key.includes("#"))
    .map((q) => {
      if (q.call)
        return `<details><summary><code>${q.key}</code>: ${q.title}</summary>

The statements one call sent (captured by Drizzle's logger), each with its plan:
\`\`\`
${plans.get(q.key)}
\`\`\`
</details>`;
      const { sql: text, params: bound } = dialect.sqlToQuery(q.build!(params));
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
    })
    .join("\n\n");

  const body = `
## Admin pages' queries at scale (bench/admin-queries.ts)

${new Date().toISOString().slice(0, 10)} · ${machine()} · ${sizes.version?.split(" on ")[0]} (shared_buffers ${sizes.shared_buffers}, server defaults)

Data: ${n(sizes.turns!)} turns (${sizes.turns_size} with indexes, ${n(Math.round(Number(sizes.turns_bytes) / Number(sizes.turns)))} bytes a turn), ${n(sizes.audit!)} audit events${Number(sizes.audit) ? ` (${sizes.audit_size}, ${n(Math.round(Number(sizes.audit_bytes) / Number(sizes.audit)))} bytes an event)` : " (loaded without them: `--no-audit`)"},
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
${measured.map(line).join("\n")}
| **Cost dashboard: totals + 3 charts, one after another** | \`cost.*\` | | ${f(median(before.dashboard))} | ${f(dashBefore)} | ≤ 150 | ${verdict(dashBefore, 150)} | ${f(median(after.dashboard))} / ${f(dashAfter)} |

${misses.length ? `**Without migration 0003's indexes** ${misses.map((q) => `\`${q.key}\``).join(", ")} missed; the EXPLAIN below shows why (a scan of the tenant's whole date range, filtering row by row).` : "Every query meets its target even without migration 0003's indexes."} ${measured.every((q) => p95(after, q.key) <= q.target) ? "**As shipped, every query meets its target.**" : "**As shipped, some queries still miss (marked).**"}

${
  retention
    ? `Retention of ${RETENTION_DAYS} days for every tenant, applied after the measurements: ${f(retention.ms / 1000)} s, ${retention.result.partitions.length} partitions dropped whole (${retention.result.partitions.join(", ") || "none"}), ${n(retention.result.turns)} turns and ${n(retention.result.auditEvents)} audit events deleted by rows (the boundary partition's), ${n(retention.result.rollupRows)} rollup rows.`
    : "Retention not measured (reused database)."
}

The indexes of migration 0003 (\`db/schema/turns.ts\`), measured above:
${PROPOSED.map((p, i) => `- \`${p.drizzle}\` (built in ${built[i] ?? "an earlier run: kept"})`).join("\n")}

The ledger's count is exact up to ${n(COUNT_CAP)} and shown as "${n(COUNT_CAP)}+" beyond
(\`select count(*) from (select 1 … limit ${COUNT_CAP + 1})\`): it stops early, follows the page's filters, and
is exact where users compare small numbers. The planner's estimate is free but only as good as the statistics
once filters combine: here it said ${n(Math.round(estimate))} for the tenant (exact: ${n(tenant.turns)}) and
${n(Math.round(estimateFiltered))} for failed + gpt-4o-mini in 7 days (exact: ${n(exactFiltered.n)}).

${details}
`;
  if (!values["no-report"]) writeSection("admin-queries", body);
  else writeFileSync(`${tmpdir()}/${dbName}.md`, body);
  log(body.split("\n<details>")[0]!);
} finally {
  await client.end({ timeout: 5 });
  await handle.close();
  if (!values.keep && !values.reuse) await admin.unsafe(`drop database if exists ${dbName} with (force)`);
  else log(`kept database ${dbName}`);
  await admin.end();
}
