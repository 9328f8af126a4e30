import "server-only";
import type { CellType, ColumnDef, Format, PageSchema, Row } from "@/features/admin-tables/contracts";
import { AppError } from "@/lib/core/errors/app-error";
import { normalizeDecimal } from "@/lib/core/format/money";
import type { AgentCardInput } from "@/lib/turns/cards";

type CardColumn = Extract<AgentCardInput, { kind: "table" }>["columns"][number];
type CardType = NonNullable<CardColumn["type"]>;
export type Cell = string | number | boolean | null;

/** A page cell as a card column: money stays money, counts and durations are numbers, times are times. */
export const CARD_TYPE: Record<CellType, CardType | null> = {
  text: "text",
  badge: "text",
  badges: "text",
  link: "text",
  datetime: "datetime",
  duration: "number",
  tokens: "number",
  money: "money",
  // Whole documents (payloads, traces) are for the page's detail view, not for a compact answer.
  json: null,
};

export const FORMAT_TYPE: Record<Format, CardType> = {
  number: "number",
  tokens: "number",
  duration: "number",
  money: "money",
};

const MAX_TEXT = 160;

/** One value as a compact, JSON-safe cell: lists joined, long text cut, money without numeric padding. */
export function cellValue(value: unknown, type: CardType): Cell {
  if (value === null || value === undefined) return null;
  if (type === "money") return typeof value === "string" ? normalizeDecimal(value) : (value as number);
  if (type === "number") {
    const n = Number(value);
    return Number.isFinite(n) ? n : String(value);
  }
  if (typeof value === "number" || typeof value === "boolean") return value;
  const text = Array.isArray(value)
    ? value.join(", ")
    : typeof value === "object"
      ? JSON.stringify(value)
      : String(value);
  return text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT)}…` : text;
}

/**
 * The columns a compact answer shows: the page's own, without the super admin's tenant column (a tool reads
 * one tenant) or whole documents; the viewer's default set unless `requested` names others.
 */
export function answerColumns(page: PageSchema, requested?: string[]): ColumnDef[] {
  const usable = page.columns.filter((c) => !c.superAdminOnly && CARD_TYPE[c.cell] !== null);
  if (!requested?.length) return usable.filter((c) => !c.defaultHidden);
  const unknown = requested.filter((f) => !usable.some((c) => c.field === f));
  if (unknown.length)
    throw new AppError(
      "validation_failed",
      `unknown column "${unknown[0]}" for page ${page.key}; its columns are: ${usable.map((c) => c.field).join(", ")}`,
    );
  return usable.filter((c) => requested.includes(c.field));
}

/** A `{field}` path filled from a row (row links: a ledger row's replay). */
export const fillHref = (href: string, row: Row) =>
  href.replace(/\{(\w+)\}/g, (_, field: string) => encodeURIComponent(String(row[field] ?? "")));
