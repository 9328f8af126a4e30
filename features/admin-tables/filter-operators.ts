/**
 * The schema pages' filter operators as the URL carries them (docs/guides/ledger.md, "Filters"), shared by the
 * filter bar and the server so both read a URL the same way:
 *
 *   f.<field>=v              the filter as it always was (select: is; text: contains, or is for `exact` fields)
 *   f.<field>.not=v          is not (select and text filters declared `not`)
 *   f.<field>.gt=n / .lt=n   greater / less than (number filters)
 *   f.<field>.gte=n&.lte=n   between, both ends included (number filters; either end alone is fine)
 *   f.<field>.from / .to     a time range (daterange filters): a day (YYYY-MM-DD) or an ISO time with a zone
 *
 * Anything else after a field's dot is an unknown operator (422 naming the filter).
 */

/** A page's filter (contracts FilterDef) as far as its operators go; structural, so contracts can re-export these. */
type FilterDef = {
  field: string;
  type: "text" | "select" | "number" | "daterange";
  exact?: boolean;
  not?: boolean;
};

export const NUMBER_SUFFIXES = ["gt", "lt", "gte", "lte"] as const;
export const FILTER_SUFFIXES = ["not", "from", "to", ...NUMBER_SUFFIXES] as const;
export type FilterSuffix = (typeof FILTER_SUFFIXES)[number];

/** `status` → {field: status}; `cost.gt` → {field: cost, suffix: gt}; `cost.like` → {field: cost, unknown: like}. */
export function parseFilterName(name: string): { field: string; suffix?: FilterSuffix; unknown?: string } {
  const dot = name.lastIndexOf(".");
  if (dot < 1) return { field: name };
  const field = name.slice(0, dot);
  const suffix = name.slice(dot + 1);
  return (FILTER_SUFFIXES as readonly string[]).includes(suffix)
    ? { field, suffix: suffix as FilterSuffix }
    : { field, unknown: suffix };
}

export const isNumberSuffix = (suffix: string | undefined): suffix is (typeof NUMBER_SUFFIXES)[number] =>
  (NUMBER_SUFFIXES as readonly string[]).includes(suffix ?? "");

/**
 * A decimal number as typed in a URL (`12`, `-3`, `0.25`, `.5`), read character by character (no regex, no
 * exponent, no thousands separators, at most 30 characters); null for anything else.
 */
export function parseDecimal(raw: string): string | null {
  const text = raw.trim();
  if (text.length === 0 || text.length > 30) return null;
  let i = text[0] === "-" ? 1 : 0;
  let digits = 0;
  let dot = false;
  for (; i < text.length; i++) {
    const c = text[i]!;
    if (c >= "0" && c <= "9") digits++;
    else if (c === "." && !dot) dot = true;
    else return null;
  }
  if (digits === 0 || text.endsWith(".")) return null;
  return text;
}

/** The URL filter names one declared filter owns. */
export function filterUrlNames(def: FilterDef): string[] {
  if (def.type === "daterange") return [`${def.field}.from`, `${def.field}.to`];
  if (def.type === "number") return NUMBER_SUFFIXES.map((s) => `${def.field}.${s}`);
  return def.not ? [def.field, `${def.field}.not`] : [def.field];
}

/** What the builder offers: the operator a chip shows and edits. */
export type Operator = "is" | "contains" | "not" | "gt" | "lt" | "between";

/** The operators a filter offers, its own first (the one `f.<field>=` means). */
export function operatorsFor(def: FilterDef | undefined): Operator[] {
  if (!def) return ["is"];
  if (def.type === "daterange") return ["between"];
  if (def.type === "number") return ["gt", "lt", "between"];
  const own: Operator = def.type === "select" || def.exact ? "is" : "contains";
  return def.not ? [own, "not"] : [own];
}

/** One active filter as a chip: its operator and value(s), and the URL names it sets. */
export type FilterChip = {
  field: string;
  op: Operator;
  value: string;
  /** The range's other end (between): `.to` / `.lte`. */
  value2?: string;
  names: string[];
};

/**
 * The URL's filters as chips, one per field and operator: a range's two ends are one chip. `filters` are the
 * values by name without the `f.` prefix; names no filter declares (f.turnId, f.tenantId from links) are chips too.
 */
export function chipsFrom(values: Record<string, string>, filters: FilterDef[]): FilterChip[] {
  const chips: FilterChip[] = [];
  const seen = new Set<string>();
  for (const [name, value] of Object.entries(values)) {
    if (value === "" || seen.has(name)) continue;
    const { field, suffix } = parseFilterName(name);
    const def = filters.find((f) => f.field === field);
    const own = operatorsFor(def)[0]!;
    if (suffix === "from" || suffix === "to" || suffix === "gte" || suffix === "lte") {
      const [lo, hi] = suffix === "from" || suffix === "to" ? ["from", "to"] : ["gte", "lte"];
      const names = [`${field}.${lo}`, `${field}.${hi}`];
      for (const n of names) seen.add(n);
      chips.push({
        field,
        op: "between",
        value: values[names[0]!] ?? "",
        value2: values[names[1]!] ?? "",
        names,
      });
    } else if (suffix === "gt" || suffix === "lt" || suffix === "not") {
      seen.add(name);
      chips.push({ field, op: suffix, value, names: [name] });
    } else {
      seen.add(name);
      chips.push({ field: name, op: own, value, names: [name] });
    }
  }
  return chips;
}

/** A chip (new or edited) as URL filter values; `previous` names are cleared first, so an edit replaces. */
export function chipParams(
  def: FilterDef | undefined,
  field: string,
  op: Operator,
  value: string,
  value2 = "",
  previous: string[] = [],
): Record<string, string> {
  const out: Record<string, string> = Object.fromEntries(previous.map((n) => [n, ""]));
  if (op === "between") {
    const [lo, hi] = def?.type === "daterange" ? ["from", "to"] : ["gte", "lte"];
    out[`${field}.${lo}`] = value.trim();
    out[`${field}.${hi}`] = value2.trim();
  } else if (op === "not" || op === "gt" || op === "lt") out[`${field}.${op}`] = value.trim();
  else out[field] = value.trim();
  return out;
}
