// How a card's cells read: pure, so the formatting is tested without a browser. The card components only render.
import { formatDateTime, formatNumber, toDate } from "@/features/admin-tables/components";
import { exactMoney, formatMoney } from "@/lib/core/format/money";
import { formatCount } from "@/lib/core/format/number";
import type { Locale } from "@/lib/i18n/messages";
import { type AgentCard, agentCard, type CardColumnType } from "@/lib/turns/cards";

export type CardCellValue = string | number | boolean | null | undefined;

/** One cell as shown: its text, alignment, the exact value on hover, and a link when it is one. */
export type CardCell = {
  text: string;
  /** Numbers and money line up on the right, in tabular figures. */
  numeric: boolean;
  title?: string;
  href?: string;
  /** An http(s) address: opened in a new tab; app paths go through Next's router. */
  external?: boolean;
  /** An ISO time for a <time> element. */
  dateTime?: string;
};

/** An app path ("/dev/agent/turns?…", never "//host") or an http(s) address: the only links a card may carry. */
export const isAppPath = (href: string) => /^\/(?!\/)/.test(href);
export const isSafeHref = (href: unknown): href is string =>
  typeof href === "string" && (isAppPath(href) || /^https?:\/\//i.test(href));

const EMPTY = "—";

/** A number as the app reads counts (whole, grouped), or with up to two decimals when it has them. */
function numberText(value: CardCellValue, locale: Locale): string {
  const n = typeof value === "number" ? value : typeof value === "string" ? Number(value) : NaN;
  if (typeof value === "string" && value.trim() === "") return EMPTY;
  if (!Number.isFinite(n)) return value === null || value === undefined ? EMPTY : String(value);
  return Number.isInteger(n) ? formatCount(n, { locale }) : formatNumber(n, locale);
}

function plainText(value: CardCellValue, yesNo: { yes: string; no: string }): string {
  if (value === null || value === undefined || value === "") return EMPTY;
  if (typeof value === "boolean") return value ? yesNo.yes : yesNo.no;
  return String(value);
}

/**
 * A cell of a typed column (or a kv item's value). `label` is the text of a link cell (its row's `<key>Label`);
 * an href that is neither an app path nor http(s) is shown as text, never as a link.
 */
export function cardCell(
  type: CardColumnType | undefined,
  value: CardCellValue,
  locale: Locale,
  extra: { label?: unknown; yes: string; no: string; open: string },
): CardCell {
  switch (type) {
    case "number":
      return { text: numberText(value, locale), numeric: true };
    case "money":
      return {
        text: formatMoney(value, { locale }),
        numeric: true,
        title: exactMoney(value),
      };
    case "datetime": {
      const date = typeof value === "string" || typeof value === "number" ? toDate(value) : null;
      if (!date) return { text: plainText(value, extra), numeric: false };
      return { text: formatDateTime(date, locale), numeric: false, dateTime: date.toISOString() };
    }
    case "link": {
      if (!isSafeHref(value)) return { text: plainText(value, extra), numeric: false };
      const text = typeof extra.label === "string" && extra.label.trim() ? extra.label : extra.open;
      return { text, numeric: false, href: value, external: !isAppPath(value), title: value };
    }
    default:
      return { text: plainText(value, extra), numeric: false };
  }
}

/**
 * The cards of a stored tool message (`data.cards`), each checked against the card schema: history is data
 * from the server, and one odd card must not break the conversation's view.
 */
export function cardsOf(data: unknown): AgentCard[] {
  const raw = data && typeof data === "object" ? (data as { cards?: unknown }).cards : undefined;
  if (!Array.isArray(raw)) return [];
  return raw.flatMap((card) => {
    const parsed = agentCard.safeParse(card);
    return parsed.success ? [parsed.data] : [];
  });
}
