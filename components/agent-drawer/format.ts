import Big from "big.js";
import type { Translate } from "@/lib/i18n/messages";
import type { FooterInfo } from "./types";

/**
 * Money stays a decimal string end to end: rounded (half up) to 6 decimals with big.js, trailing zeros
 * trimmed, "$0" for zero, "—" when the model has no price.
 */
export function formatCost(cost: string | null): string {
  if (cost === null) return "—";
  let value: Big;
  try {
    value = new Big(cost);
  } catch {
    return "—";
  }
  if (value.eq(0)) return "$0";
  const rounded = value.round(6, Big.roundHalfUp);
  // A real but tiny spend must not read as free.
  if (rounded.eq(0)) return value.gt(0) ? "<$0.000001" : "-<$0.000001";
  return `$${rounded.toFixed()}`;
}

export const formatSeconds = (ms: number) => (ms / 1000).toFixed(1);

// Plain digits, so the footer reads the same in every locale and matches the ledger.
const tokens = (n: number) => String(n);

/** `<served model> · <in>/<out> tokens · $<cost> · <latency>s`, plus the status when it is not success. */
export function footerText(footer: FooterInfo, t: Translate): string {
  const parts = [
    footer.servedModel ?? "—",
    t("agent.footer.tokens", { in: tokens(footer.inputTokens), out: tokens(footer.outputTokens) }),
    formatCost(footer.cost),
  ];
  if (footer.latencyMs !== null)
    parts.push(t("agent.footer.latency", { s: formatSeconds(footer.latencyMs) }));
  if (footer.status !== "success") parts.push(t(`agent.status.${footer.status}`));
  return parts.join(" · ");
}

/** Pretty JSON when the text is JSON, the text itself otherwise. */
export function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

/** One line for a card: compact JSON, cut to `max` characters. */
export function oneLine(value: unknown, max = 160): string {
  const text = typeof value === "string" ? value : JSON.stringify(value);
  const flat = (text ?? "").replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
