import { formatMoney } from "@/lib/core/format/money";
import { formatCount } from "@/lib/core/format/number";
import type { Translate } from "@/lib/i18n/messages";
import type { FooterInfo } from "./types";

/** The turn's cost as every page reads it (lib/core/format/money.ts); "—" when the model has no price. */
export const formatCost = (cost: string | null): string => formatMoney(cost);

export const formatSeconds = (ms: number) => (ms / 1000).toFixed(1);

// Grouped as the ledger groups them (the same marks in English and Chinese).
const tokens = (n: number) => formatCount(n);

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
