import "server-only";
import { getTableColumns, type SQL, sql } from "drizzle-orm";
import { sysAgentTurn, usageDaily } from "@/db/schema";

/**
 * The one definition of what a ledger row (sys_agent_turn) adds to the daily rollup (usage_daily), in SQL: the
 * key it lands on and what it adds to each summed column. The recorders add a closing turn's line in TypeScript
 * (rollupOf in recorder.ts); everything that rolls up or compares in SQL (the interrupted-turn sweep, its undo,
 * the sample history and its removal, reconciliation) uses this.
 *
 * - Which rows count: closed rows, i.e. every status but `running` (`success`, `failed`, `stopped`, `limit`,
 *   `interrupted`), with a user (the rollup's key needs one; every writer sets it).
 * - The key: tenant, the UTC day the turn started, user, source, the served adapter (`none` when nothing served)
 *   and the served model (the requested one when nothing served).
 * - `requests` counts rows; `failures` counts rows with status `failed` (not `stopped`, `limit` or `interrupted`:
 *   those are ended turns, not provider failures); `latencyMsTotal` sums latency (null as 0); `cost` sums cost
 *   (null, unpriced, as 0); `unpricedRequests` counts rows with cost_status `unpriced` (so the dashboard shows
 *   that part of the usage has no cost); every other counter sums the ledger column of the same name.
 */

/** The rollup's counters a line adds to its day (the cost, a decimal, is added beside them). */
export const ROLLUP_SUMS = [
  "requests",
  "failures",
  "inputTokens",
  "cachedInputTokens",
  "cacheWriteTokens",
  "outputTokens",
  "reasoningTokens",
  "latencyMsTotal",
  "unpricedRequests",
] as const;
/** Every summed column of a rollup line: the counters and the cost. */
export const ROLLUP_ADDED = [...ROLLUP_SUMS, "cost"] as const;
export type RollupColumn = (typeof ROLLUP_ADDED)[number];

export const ROLLUP_KEY = [
  usageDaily.tenantId,
  usageDaily.day,
  usageDaily.userId,
  usageDaily.source,
  usageDaily.servedAdapter,
  usageDaily.servedModel,
];
/** The key's column names in usage_daily, in order. */
export const ROLLUP_KEY_NAMES = ROLLUP_KEY.map((c) => c.name);
/** A summed column's name in usage_daily. */
export const rollupName = (column: RollupColumn) => usageDaily[column].name;

/** Columns whose ledger side is not "the sum of the ledger column of the same name". */
const SPECIAL: Partial<Record<RollupColumn, string>> = {
  requests: "count(*)",
  failures: "count(*) filter (where status = 'failed')",
  latencyMsTotal: "coalesce(sum(latency_ms), 0)",
  cost: "coalesce(sum(cost), 0)",
  unpricedRequests: "count(*) filter (where cost_status = 'unpriced')",
};
const ledgerColumns = getTableColumns(sysAgentTurn) as Record<string, { name: string }>;
/** Per rollup column, its aggregate over ledger rows (a column added to ROLLUP_SUMS is summed here by name). */
export const LEDGER_AGGREGATE: Record<RollupColumn, string> = Object.fromEntries(
  ROLLUP_ADDED.map((column) => {
    const special = SPECIAL[column];
    if (special) return [column, special];
    const ledger = ledgerColumns[column];
    // Fails at start-up rather than reconciling a column against nothing.
    if (!ledger)
      throw new Error(`rollup column ${column} has no ledger column and no aggregate in rollup-sql.ts`);
    return [column, `coalesce(sum(${ledger.name}), 0)`];
  }),
) as Record<RollupColumn, string>;

/** The key expressions over a ledger row, in ROLLUP_KEY order. */
const LEDGER_KEY = [
  "tenant_id",
  "(started_at at time zone 'UTC')::date",
  "user_id",
  "source",
  "coalesce(served_adapter, 'none')",
  "coalesce(served_model, requested_model)",
];

/** Ledger rows that are in the rollup: closed, with a user. */
export const IN_ROLLUP = sql.raw("status <> 'running' and user_id is not null");

/**
 * `select` list over ledger rows giving their rollup lines, named as usage_daily's columns; use with
 * `group by ${ROLLUP_GROUP}`. Counts are cast to the rollup's types (int requests/failures, bigint tokens).
 */
export const LEDGER_ROLLUP_SELECT = sql.raw(
  [
    ...LEDGER_KEY.map((expr, i) => `${expr} as ${ROLLUP_KEY_NAMES[i]}`),
    ...ROLLUP_ADDED.map((c) => `(${LEDGER_AGGREGATE[c]})::${sqlType(c)} as ${rollupName(c)}`),
  ].join(", "),
);
/** `group by` / `order by` over LEDGER_ROLLUP_SELECT's key. */
export const ROLLUP_GROUP = sql.raw("1, 2, 3, 4, 5, 6");
/** usage_daily's columns in LEDGER_ROLLUP_SELECT's order, for `insert into usage_daily (…)`. */
export const ROLLUP_COLUMNS = sql.raw([...ROLLUP_KEY_NAMES, ...ROLLUP_ADDED.map(rollupName)].join(", "));

/** On conflict, a day's line gets the new line's counters and cost added (drizzle's `set`). */
export const ROLLUP_ADD = Object.fromEntries(
  ROLLUP_ADDED.map((k) => [k, sql`${usageDaily[k]} + excluded.${sql.raw(`"${usageDaily[k].name}"`)}`]),
) as Record<RollupColumn, SQL>;

/** The same upsert as raw SQL, for statements built outside drizzle's insert (batches, the sweep, samples). */
export const ROLLUP_UPSERT = sql.raw(
  `on conflict (${ROLLUP_KEY_NAMES.map((c) => `"${c}"`).join(", ")}) do update set ${ROLLUP_ADDED.map(
    rollupName,
  )
    .map((c) => `"${c}" = "usage_daily"."${c}" + excluded."${c}"`)
    .join(", ")}`,
);

/** `u.<col> <op> s.<col>` for every summed column, for an `update usage_daily u … from (…) s`. */
export const rollupSet = (expression: (column: string) => string) =>
  sql.raw(
    ROLLUP_ADDED.map(rollupName)
      .map((c) => `${c} = ${expression(c)}`)
      .join(", "),
  );

function sqlType(column: RollupColumn): string {
  if (column === "cost") return "numeric(20,10)";
  return usageDaily[column].getSQLType() === "integer" ? "int" : "bigint";
}
