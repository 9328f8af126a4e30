import "server-only";
import { type SQL, sql } from "drizzle-orm";
import type { Database, Executor } from "@/db";
import { type Actor, recordChange } from "@/lib/changes/changes";
import { normalizeDecimal } from "@/lib/core/format/money";
import { log } from "@/lib/core/process/log";
import {
  IN_ROLLUP,
  LEDGER_ROLLUP_SELECT,
  ROLLUP_ADDED,
  ROLLUP_GROUP,
  ROLLUP_KEY_NAMES,
  type RollupColumn,
  rollupName,
} from "./rollup-sql";

/** One rollup line's key. */
export type RollupKey = {
  tenantId: string;
  day: string;
  userId: string;
  source: string;
  servedAdapter: string;
  servedModel: string;
};
/** A rollup line that differs from its ledger rows: per differing column, the rollup's value and the ledger's. */
export type DriftLine = {
  key: RollupKey;
  /** Exact values as decimal strings ("0" where a side has no line or no rows). */
  columns: Partial<Record<RollupColumn, { rollup: string; ledger: string }>>;
};
export type ReconcileOptions = {
  /** First UTC day, YYYY-MM-DD. */
  from: string;
  /** Last UTC day, YYYY-MM-DD (included). */
  to: string;
  tenantId?: string;
  /** Set the drifting lines to the ledger's sums (otherwise only report them). */
  repair: boolean;
  /** The clock for each tenant's retention window (days retention already cut are not compared). */
  now?: Date;
};
export type ReconcileResult = { lines: DriftLine[]; repaired: number };

/** Repairs are recorded in the admin-change log under this actor (no user made them). */
export const RECONCILE_ACTOR: Actor = {
  id: "00000000-0000-0000-0000-000000000000",
  email: "system:reconcile",
};
/** At most this many lines are kept in one change-log row (the log line and the return value have them all). */
const CHANGE_LOG_LINES = 200;

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const KEY_FIELDS: (keyof RollupKey)[] = [
  "tenantId",
  "day",
  "userId",
  "source",
  "servedAdapter",
  "servedModel",
];

/**
 * Compares the daily rollups with the sums of their closed ledger rows (rollup-sql.ts defines the sums) per key
 * over the UTC days `from`..`to`, keys of either side, and with `repair` sets every drifting line to its ledger
 * sums (a line with no ledger rows is deleted). Days before a tenant's retention cut-off are left alone: the
 * ledger there is gone, by design.
 *
 * Repair is safe while turns close: it takes `usage_daily` in SHARE ROW EXCLUSIVE mode (which every writer of the
 * rollup, taking ROW EXCLUSIVE, waits for) before it reads the ledger, and every writer changes the ledger and the
 * rollup in one transaction, so a closing turn either committed before the read (and is in the sums) or adds its
 * line after the repair commits. Repairs are logged and recorded in the admin-change log per tenant.
 */
export async function reconcileRollups(db: Database, opts: ReconcileOptions): Promise<ReconcileResult> {
  checkRange(opts.from, opts.to);
  if (!opts.repair) return { lines: toLines(rowsOf(await db.execute(driftQuery(opts, false)))), repaired: 0 };
  const lines = await db.transaction(async (tx) => {
    await tx.execute(sql`lock table usage_daily in share row exclusive mode`);
    const found = toLines(rowsOf(await tx.execute(driftQuery(opts, true))));
    await recordRepairs(tx, opts, found);
    return found;
  });
  if (lines.length)
    log.warn(
      { from: opts.from, to: opts.to, lines: lines.length, drift: lines.slice(0, CHANGE_LOG_LINES) },
      "daily rollups differed from the ledger; set to the ledger's sums",
    );
  return { lines, repaired: lines.length };
}

/** Throws (a one-line message) unless `from` and `to` are real days with `from` not after `to`. */
export function checkRange(from: string, to: string): void {
  for (const [name, value] of [
    ["from", from],
    ["to", to],
  ] as const)
    if (!DAY.test(value) || Number.isNaN(Date.parse(`${value}T00:00:00Z`)) || isoDay(value) !== value)
      throw new Error(`--${name} must be a real day like 2026-11-01 (got "${value}")`);
  if (from > to) throw new Error(`--from ${from} is after --to ${to}`);
}

const isoDay = (day: string) => new Date(`${day}T00:00:00Z`).toISOString().slice(0, 10);

/**
 * Per key in range, the rollup's and the ledger's values of every summed column, for the keys where any differs;
 * with `repair`, the same statement also sets those lines to the ledger's values.
 */
function driftQuery(opts: ReconcileOptions, repair: boolean): SQL {
  const now = (opts.now ?? new Date()).toISOString();
  const start = `${opts.from}T00:00:00Z`;
  const end = new Date(Date.parse(`${opts.to}T00:00:00Z`) + 86_400_000).toISOString();
  const tenantOf = (column: string) =>
    opts.tenantId ? sql`and ${sql.raw(column)} = ${opts.tenantId}::uuid` : sql``;
  const keys = ROLLUP_KEY_NAMES.join(", ");
  const sums = ROLLUP_ADDED.map(rollupName);
  const raw = (text: string) => sql.raw(text);
  const both = raw(sums.map((c) => `l.${c} as l_${c}, r.${c} as r_${c}`).join(", "));
  const differs = raw(sums.map((c) => `coalesce(l_${c}, 0) <> coalesce(r_${c}, 0)`).join(" or "));
  const asText = raw(
    sums.map((c) => `coalesce(l_${c}, 0)::text as l_${c}, coalesce(r_${c}, 0)::text as r_${c}`).join(", "),
  );
  const repairs = repair
    ? sql`, gone as (
        delete from usage_daily u using drift d
        where (${raw(ROLLUP_KEY_NAMES.map((c) => `u.${c}`).join(", "))}) = (${raw(ROLLUP_KEY_NAMES.map((c) => `d.${c}`).join(", "))})
          and not d.in_ledger
        returning 1
      ), fixed as (
        insert into usage_daily (${raw(keys)}, ${raw(sums.join(", "))})
        select ${raw(keys)}, ${raw(sums.map((c) => `l_${c}`).join(", "))} from drift where in_ledger
        order by ${ROLLUP_GROUP}
        on conflict (${raw(keys)}) do update set ${raw(sums.map((c) => `${c} = excluded.${c}`).join(", "))}
        returning 1
      )`
    : sql``;
  return sql`
    with ledger as (
      select ${LEDGER_ROLLUP_SELECT} from sys_agent_turn
      where ${IN_ROLLUP} and started_at >= ${start}::timestamptz and started_at < ${end}::timestamptz
        ${tenantOf("tenant_id")}
      group by ${ROLLUP_GROUP}
    ), rollup as (
      select ${raw(keys)}, ${raw(sums.join(", "))} from usage_daily
      where day >= ${opts.from}::date and day <= ${opts.to}::date ${tenantOf("tenant_id")}
    ), joined as (
      select ${raw(keys)}, l.tenant_id is not null as in_ledger, ${both}
      from ledger l full join rollup r using (${raw(keys)})
    ), drift as (
      select j.* from joined j join tenant t on t.id = j.tenant_id
      where j.day >= ((${now}::timestamptz at time zone 'UTC') - make_interval(days => t.retention_days))::date
        and (${differs})
    )${repairs}
    select ${raw(ROLLUP_KEY_NAMES.map((c) => `${c}::text as ${c}`).join(", "))}, ${asText}
    from drift order by ${ROLLUP_GROUP}`;
}

type DriftRow = Record<string, string>;

function toLines(rows: DriftRow[]): DriftLine[] {
  return rows.map((row) => {
    const key = Object.fromEntries(KEY_FIELDS.map((f, i) => [f, row[ROLLUP_KEY_NAMES[i]!]!])) as RollupKey;
    const columns: DriftLine["columns"] = {};
    for (const column of ROLLUP_ADDED) {
      const name = rollupName(column);
      const rollup = normalizeDecimal(String(row[`r_${name}`]));
      const ledger = normalizeDecimal(String(row[`l_${name}`]));
      if (rollup !== ledger) columns[column] = { rollup, ledger };
    }
    return { key, columns };
  });
}

/** One admin-change row per tenant whose lines were repaired: the lines before (rollup) and after (ledger). */
async function recordRepairs(tx: Executor, opts: ReconcileOptions, lines: DriftLine[]): Promise<void> {
  const byTenant = new Map<string, DriftLine[]>();
  for (const line of lines)
    byTenant.set(line.key.tenantId, [...(byTenant.get(line.key.tenantId) ?? []), line]);
  for (const [tenantId, tenantLines] of byTenant) {
    const kept = tenantLines.slice(0, CHANGE_LOG_LINES);
    const side = (which: "rollup" | "ledger") => ({
      lines: tenantLines.length,
      values: kept.map(({ key, columns }) => ({
        ...key,
        ...Object.fromEntries(Object.entries(columns).map(([c, v]) => [c, v[which]])),
      })),
    });
    await recordChange(tx, RECONCILE_ACTOR, {
      tenantId,
      action: "usage_rollup.repaired",
      objectType: "usage_rollup",
      objectId: `${opts.from}..${opts.to}`,
      before: side("rollup"),
      after: side("ledger"),
    });
  }
}

function rowsOf<T = DriftRow>(result: unknown): T[] {
  return (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[];
}
