import type { Format, Localized } from "@/features/admin-tables/contracts";
import { formatMoney as formatMoneyText } from "@/lib/core/format/money";
import { formatCount } from "@/lib/core/format/number";
import type { Locale } from "@/lib/i18n/messages";

export const pick = (text: Localized, locale: Locale) => text[locale];

const intlLocale = (locale: Locale) => (locale === "zh" ? "zh-CN" : "en-US");

export const isBlank = (value: unknown) => value === null || value === undefined || value === "";

/** Numbers may arrive as strings (Postgres bigint, numeric, avg); NaN means "not a number". */
export const toNumber = (value: unknown) =>
  typeof value === "number" ? value : typeof value === "string" && value.trim() !== "" ? Number(value) : NaN;

export function formatNumber(value: unknown, locale: Locale, maxDecimals = 2): string {
  const n = toNumber(value);
  if (Number.isNaN(n)) return "—";
  return new Intl.NumberFormat(intlLocale(locale), { maximumFractionDigits: maxDecimals }).format(n);
}

/** Tokens and other counts as every page reads them: lib/core/format/number.ts. */
export const formatTokens = (value: unknown, locale: Locale) => formatCount(value, { locale });

/** Money as every page reads it (two decimals from $1, four significant digits below): lib/core/format/money.ts. */
export const formatMoney = (value: unknown, locale: Locale = "en") => formatMoneyText(value, { locale });

/** Milliseconds as "850 ms", "1.2 s" or "2 min 5 s". */
export function formatDuration(value: unknown): string {
  const ms = toNumber(value);
  if (Number.isNaN(ms)) return "—";
  if (Math.abs(ms) < 1000) return `${Math.round(ms)} ms`;
  if (Math.abs(ms) < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const seconds = Math.round(ms / 1000);
  return `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}

export function formatMeasure(format: Format, value: unknown, locale: Locale): string {
  switch (format) {
    case "money":
      return formatMoney(value, locale);
    case "duration":
      return formatDuration(value);
    case "tokens":
      return formatTokens(value, locale);
    default:
      return formatNumber(value, locale);
  }
}

/** Short axis ticks: "12K", "$1.2K", "$0.025", "3.4 s". */
export function formatTick(format: Format, value: number, locale: Locale): string {
  if (format === "duration") return formatDuration(value);
  // Significant digits, not decimals: a chart of cents must not label every tick "$0".
  const compact = new Intl.NumberFormat(intlLocale(locale), {
    notation: "compact",
    maximumSignificantDigits: 3,
  }).format(value);
  return format === "money" ? `$${compact}` : compact;
}

/** A parsed date, or null when the value is not one. */
export function toDate(value: unknown): Date | null {
  if (!(typeof value === "string" || typeof value === "number" || value instanceof Date)) return null;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? null : date;
}

export const formatDateTime = (date: Date, locale: Locale) =>
  new Intl.DateTimeFormat(intlLocale(locale), { dateStyle: "medium", timeStyle: "medium" }).format(date);

/** One line for a table cell: compact JSON, cut to `max` characters. */
export function jsonPreview(value: unknown, max = 80): string {
  const text = typeof value === "string" ? value : JSON.stringify(value);
  const flat = (text ?? "").replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** Fills "{field}" placeholders from the row, URI-encoded; null when a placeholder has no value. */
export function fillHref(template: string, row: Record<string, unknown>): string | null {
  let missing = false;
  const href = template.replace(/\{(\w+)\}/g, (_, field: string) => {
    const value = row[field];
    if (isBlank(value)) missing = true;
    return encodeURIComponent(String(value ?? ""));
  });
  return missing ? null : href;
}
