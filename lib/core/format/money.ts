// How an amount of USD reads, the same on every page (browser and server alike): costs arrive as exact decimal
// strings ("15.7460713") and are rounded here with big.js, never through a float.
import Big from "big.js";

export type MoneyLocale = "en" | "zh";

/** What an amount is made of before it is printed; null when the value is not an amount. */
function amountOf(value: unknown): Big | null {
  if (value === null || value === undefined) return null;
  if (typeof value === "number") return Number.isFinite(value) ? new Big(String(value)) : null;
  if (typeof value !== "string" || value.trim() === "") return null;
  try {
    return new Big(value.trim());
  } catch {
    return null;
  }
}

const separators = new Map<MoneyLocale, { group: string; decimal: string }>();
/** The locale's grouping and decimal marks (both "," and "." for en and zh today, asked of Intl anyway). */
function marks(locale: MoneyLocale) {
  let found = separators.get(locale);
  if (!found) {
    const parts = new Intl.NumberFormat(locale === "zh" ? "zh-CN" : "en-US").formatToParts(1234.5);
    found = {
      group: parts.find((p) => p.type === "group")?.value ?? ",",
      decimal: parts.find((p) => p.type === "decimal")?.value ?? ".",
    };
    separators.set(locale, found);
  }
  return found;
}

function print(amount: Big, decimals: string, locale: MoneyLocale): string {
  const { group, decimal } = marks(locale);
  const [whole = "0"] = amount.abs().toFixed().split(".");
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, group);
  return `${amount.lt(0) ? "-" : ""}$${grouped}${decimals ? `${decimal}${decimals}` : ""}`;
}

/**
 * An amount for reading: two decimals from $1 up ("$1,234,567.89"), four significant digits below
 * ("$0.01234", "$0.0000001234", trailing zeros trimmed to at least cents: "$0.50"), "$0.00" for zero, and
 * `empty` ("—" unless the caller names it, e.g. "unpriced") when there is no amount. Half-up rounding on the
 * decimal itself, so 0.999995 reads "$1.00" and 1.005 "$1.01".
 */
export function formatMoney(value: unknown, options: { locale?: MoneyLocale; empty?: string } = {}): string {
  const locale = options.locale ?? "en";
  const amount = amountOf(value);
  if (!amount) return options.empty ?? "—";
  if (amount.eq(0)) return print(amount, "00", locale);
  const small = amount.abs().lt(1) ? amount.prec(4, Big.roundHalfUp) : null;
  if (small?.abs().lt(1)) {
    const fraction = small.abs().toFixed().split(".")[1] ?? "";
    return print(small, fraction.replace(/0+$/, "").padEnd(2, "0"), locale);
  }
  const cents = amount.round(2, Big.roundHalfUp);
  return print(cents, cents.abs().toFixed(2).split(".")[1]!, locale);
}

/** The exact amount, for a title (hover) and exports: every decimal the server sent, trailing zeros trimmed. */
export function exactMoney(value: unknown): string | undefined {
  const amount = amountOf(value);
  if (!amount) return undefined;
  return `${amount.lt(0) ? "-" : ""}$${amount.abs().toFixed()}`;
}

/** "0.0001230000" → "0.000123": numeric(20,10) pads; callers want the exact value, not the padding. */
export function normalizeDecimal(value: string | null): string {
  if (!value) return "0";
  return value.includes(".") ? value.replace(/\.?0+$/, "") || "0" : value;
}
