// How a chart over time buckets its range: pure, shared by the providers (which bucket in SQL) and their tests.

export type Granularity = "hour" | "day" | "week";
export type SeriesPoint = { label: string; value: number | string };

const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;

/**
 * Hours for a range of up to two days (only where the source has times: the ledger, not the daily rollups),
 * days up to 90 days, weeks beyond: about 24 to 90 points, never thousands.
 */
export function chooseGranularity(spanMs: number, finest: "hour" | "day"): Granularity {
  if (finest === "hour" && spanMs <= 2 * DAY_MS) return "hour";
  return spanMs <= 90 * DAY_MS ? "day" : "week";
}

/** The start of the bucket holding `ms`, in UTC (weeks start on Monday, as Postgres's date_trunc('week')). */
export function bucketStart(ms: number, granularity: Granularity): number {
  if (granularity === "hour") return Math.floor(ms / HOUR_MS) * HOUR_MS;
  const day = Math.floor(ms / DAY_MS) * DAY_MS;
  if (granularity === "day") return day;
  const weekday = (new Date(day).getUTCDay() + 6) % 7; // Monday 0 … Sunday 6
  return day - weekday * DAY_MS;
}

/** A bucket's label as the series carries it: "2026-03-15T14:00:00Z" for an hour, "2026-03-15" for a day or week. */
export function bucketLabel(ms: number, granularity: Granularity): string {
  const iso = new Date(ms).toISOString();
  return granularity === "hour" ? `${iso.slice(0, 19)}Z` : iso.slice(0, 10);
}

/** A label back to its time (labels are UTC). */
export const labelTime = (label: string) => Date.parse(label.length === 10 ? `${label}T00:00:00Z` : label);

/** More buckets than this are not filled in (a sparse series over years stays as the data has it). */
const MAX_BUCKETS = 600;

/**
 * Every bucket from `fromMs` to `toMs`, with the series' value where it has one and 0 where it has none, so a
 * line does not join two active days across an idle week as if spend had been steady.
 */
export function fillBuckets(
  points: SeriesPoint[],
  range: { fromMs: number; toMs: number },
  granularity: Granularity,
): SeriesPoint[] {
  const values = new Map(points.map((p) => [p.label, p.value]));
  const first = bucketStart(range.fromMs, granularity);
  const last = bucketStart(range.toMs, granularity);
  const step = granularity === "hour" ? HOUR_MS : granularity === "day" ? DAY_MS : 7 * DAY_MS;
  if (!(last >= first) || (last - first) / step > MAX_BUCKETS) return points;
  const filled: SeriesPoint[] = [];
  for (let at = first; at <= last; at += step) {
    const label = bucketLabel(at, granularity);
    filled.push({ label, value: values.get(label) ?? 0 });
    values.delete(label);
  }
  // A point outside the range (it should not happen) is kept rather than dropped silently.
  for (const [label, value] of values) filled.push({ label, value });
  return filled.sort((a, b) => labelTime(a.label) - labelTime(b.label));
}

/** One bound of a page's time filter (a day, or an ISO time), as milliseconds; a day as the end covers that day. */
export function boundMs(value: string | undefined, end: boolean): number | null {
  if (!value) return null;
  const isDay = /^\d{4}-\d{2}-\d{2}$/.test(value);
  const ms = Date.parse(isDay ? `${value}T00:00:00Z` : value);
  if (Number.isNaN(ms)) return null;
  return isDay && end ? ms + DAY_MS - 1 : ms;
}

/**
 * The range a chart over time covers: the filter's bounds, else the data's own first and last time; an open
 * end after a start runs to now (the "last 24 hours" kind of range).
 */
export function seriesRange(
  filter: { from?: string; to?: string },
  data: { minMs: number | null; maxMs: number | null },
  nowMs: number,
): { fromMs: number; toMs: number } | null {
  const from = boundMs(filter.from, false);
  const to = boundMs(filter.to, true);
  const fromMs = from ?? data.minMs;
  const toMs = to ?? (from !== null ? Math.max(nowMs, data.maxMs ?? nowMs) : data.maxMs);
  if (fromMs === null || toMs === null) return null;
  return { fromMs, toMs };
}
