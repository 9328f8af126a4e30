// Prepare: every data and formatting decision of a chart (the view in charts.tsx only draws what this returns).

import type { ChartDef, SeriesResult } from "@/features/admin-tables/contracts";
import { type Granularity, labelTime } from "@/features/admin-tables/server/time-buckets";
import { exactMoney } from "@/lib/core/format/money";
import type { Locale, Translate } from "@/lib/i18n/messages";
import { formatMeasure, formatTick, pick, toNumber } from "./format";

/** `label`: what the axis and table show; `exact`: money to its last decimal, when the display is rounded. */
export type ChartPoint = { key: string; label: string; value: number; display: string; exact?: string };
export type PreparedChart = {
  title: string;
  type: ChartDef["type"];
  points: ChartPoint[];
  tick: (n: number) => string;
  granularity: Granularity | null;
  /** Bars: the room the category labels get (px), and the chart's height for that many bars. */
  labelWidth: number;
  /** Bars: the room of the value column on the right (px). */
  valueWidth: number;
  height: number;
};

const BAR_ROW = 28;
const LABEL_FONT_PX = 11;

/** An estimate of a label's width at the axis font: CJK characters are about twice as wide as Latin ones. */
export function textWidth(text: string): number {
  let width = 0;
  for (const ch of text)
    width += /[\u2E80-\u9FFF\uFF00-\uFFEF]/.test(ch) ? LABEL_FONT_PX : LABEL_FONT_PX * 0.6;
  return Math.ceil(width);
}

/** The room for bar labels: the longest label, between 48 and 200 px (longer labels are cut with "…"). */
export const labelWidthFor = (labels: string[]) =>
  Math.min(200, Math.max(48, ...labels.map((l) => textWidth(l) + 12)));

/** A label cut to fit `width` px, with "…"; the full label stays on hover and in the table. */
export function fitLabel(label: string, width: number): string {
  if (textWidth(label) <= width) return label;
  let out = "";
  for (const ch of label) {
    if (textWidth(`${out}${ch}…`) > width) break;
    out += ch;
  }
  return `${out}…`;
}

/** A time bucket's label: "Mar 15, 14:00" for an hour, "Mar 15" for a day, "Week of Mar 9" for a week (UTC). */
export function formatBucket(label: string, granularity: Granularity, locale: Locale, t?: Translate): string {
  const ms = labelTime(label);
  if (Number.isNaN(ms)) return label;
  const tag = locale === "zh" ? "zh-CN" : "en-US";
  const day: Intl.DateTimeFormatOptions = { month: "short", day: "numeric", timeZone: "UTC" };
  const text = new Intl.DateTimeFormat(
    tag,
    granularity === "hour" ? { ...day, hour: "2-digit", minute: "2-digit", hourCycle: "h23" } : day,
  ).format(ms);
  return granularity === "week" && t ? t("charts.weekOf", { day: text }) : text;
}

/**
 * Bars sorted by value, largest first (ties by label), each labelled; a series over time in time order with its
 * buckets named for the range's granularity. What people read (labels, tooltips, the table) is the server's value
 * formatted as every page formats it, and money also to its last decimal.
 */
export function prepareChart(
  def: ChartDef,
  series: SeriesResult | null,
  locale: Locale,
  t?: Translate,
): PreparedChart {
  const granularity = series?.granularity ?? null;
  const points = (series?.points ?? []).map((p) => {
    const value = toNumber(p.value);
    return {
      key: p.label,
      label: granularity ? formatBucket(p.label, granularity, locale, t) : p.label,
      value: Number.isNaN(value) ? 0 : value,
      display: formatMeasure(def.format, p.value, locale),
      exact: def.format === "money" ? exactMoney(p.value) : undefined,
    };
  });
  if (granularity) points.sort((a, b) => labelTime(a.key) - labelTime(b.key));
  else if (def.type === "bar") points.sort((a, b) => b.value - a.value || a.label.localeCompare(b.label));
  const labelWidth = labelWidthFor(points.map((p) => p.label));
  return {
    title: pick(def.title, locale),
    type: def.type,
    points,
    tick: (n) => formatTick(def.format, n, locale),
    granularity,
    labelWidth,
    valueWidth: Math.max(40, ...points.map((p) => textWidth(p.display) + 12)),
    height: def.type === "bar" ? Math.max(140, points.length * BAR_ROW + 36) : 240,
  };
}
