// How a count (tokens, requests, a limit per minute) reads, the same on every page and in the drawer: whole,
// grouped in thousands ("1,234,567" in English and Chinese alike). Money has its own rule: money-format.ts.

export type NumberLocale = "en" | "zh";

const formats = new Map<NumberLocale, Intl.NumberFormat>();

/** A count, grouped; "—" (or `empty`) when the value is not a number. Numbers may arrive as strings (bigint). */
export function formatCount(value: unknown, options: { locale?: NumberLocale; empty?: string } = {}): string {
  const n =
    typeof value === "number"
      ? value
      : typeof value === "string" && value.trim() !== ""
        ? Number(value)
        : NaN;
  if (!Number.isFinite(n)) return options.empty ?? "—";
  const locale = options.locale ?? "en";
  let format = formats.get(locale);
  if (!format) {
    format = new Intl.NumberFormat(locale === "zh" ? "zh-CN" : "en-US", { maximumFractionDigits: 0 });
    formats.set(locale, format);
  }
  return format.format(n);
}

/** A size as people read it: "5 MB", "1.5 MB", "820 KB", "12 bytes". */
export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${+(bytes / 1024 / 1024).toFixed(1)} MB`;
  if (bytes >= 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${bytes} bytes`;
}
