import "server-only";
import { type SQL, sql } from "drizzle-orm";
import type { PgColumn, PgTable } from "drizzle-orm/pg-core";
import type { Database } from "@/db";
import { normalizeDecimal } from "@/lib/core/format/money";
import type { SeriesResult } from "../contracts";
import { chooseGranularity, fillBuckets, labelTime, seriesRange } from "./time-buckets";

const ISO = `'YYYY-MM-DD"T"HH24:MI:SS"Z"'`;

/**
 * A chart over time: the range (the filter's, else the data's), a granularity that suits it, one SQL group per
 * bucket (UTC), and the empty buckets filled in. `time` must be a UTC timestamp without zone (e.g. a date column
 * cast to timestamp, or `started_at at time zone 'UTC'`); `finest` is "day" for sources that only have days.
 */
export async function timeSeries(
  db: Database,
  source: {
    table: PgTable;
    where: SQL | undefined;
    time: SQL | PgColumn;
    value: SQL;
    finest: "hour" | "day";
    filter: { from?: string; to?: string };
  },
  nowMs = Date.now(),
): Promise<SeriesResult> {
  const [bounds] = await db
    .select({
      min: sql<string | null>`to_char(min(${source.time}), ${sql.raw(ISO)})`,
      max: sql<string | null>`to_char(max(${source.time}), ${sql.raw(ISO)})`,
    })
    .from(source.table)
    .where(source.where);
  const range = seriesRange(
    source.filter,
    {
      minMs: bounds?.min ? labelTime(bounds.min) : null,
      maxMs: bounds?.max ? labelTime(bounds.max) : null,
    },
    nowMs,
  );
  if (!range || !bounds?.min) return { points: [], granularity: "day" };
  const granularity = chooseGranularity(range.toMs - range.fromMs, source.finest);
  const format = granularity === "hour" ? ISO : `'YYYY-MM-DD'`;
  const rows = await db
    .select({
      label: sql<string>`to_char(date_trunc(${granularity}, ${source.time}), ${sql.raw(format)})`,
      value: source.value,
    })
    .from(source.table)
    .where(source.where)
    .groupBy(sql`1`)
    .orderBy(sql`1 asc`);
  const points = rows.map((r) => ({ label: String(r.label), value: normalize(r.value) }));
  return { points: fillBuckets(points, range, granularity), granularity };
}

/** Numeric text stays exact (money); whole numbers become numbers. */
export function normalize(value: unknown): number | string {
  if (typeof value === "number") return value;
  const text = String(value ?? "0");
  if (/^-?\d+$/.test(text) && text.length < 16) return Number(text);
  return normalizeDecimal(text);
}
