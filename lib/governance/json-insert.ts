import "server-only";
import { getTableColumns, getTableName, type SQL, sql, type Table } from "drizzle-orm";
import { cleanRows } from "@/lib/core/text/clean-text";

// What JSON.stringify writes for the characters PostgreSQL refuses: NUL, and a lone surrogate (always escaped).
// A literal backslash before "u0000" in a value also matches: then the rows are cleaned for nothing, which is safe.
const MAY_NEED_CLEANING = /\\u0000|\\ud[89a-f]/i;

/**
 * `insert … select … from json_to_recordset($1) as x(<column> <type>, …)`: many rows as one JSON parameter,
 * which PostgreSQL parses in C, instead of a parameter per column of every row that drizzle builds and the driver
 * encodes one by one (most of the ledger writer's CPU: bench/gateway-overhead). Rows are drizzle insert objects
 * (camelCase keys, Dates, objects for jsonb, arrays for text[]) serialised as they are, each key typed as its
 * column; the columns are those the rows set, so an unset column keeps its database default, and rows that set
 * different columns go in separate statements. `conflict` is appended as written (the rollup's upsert). NUL
 * and lone surrogates are replaced as `cleanRow` does, so callers need not clean rows first.
 */
export function jsonInsert(table: Table, rows: Record<string, unknown>[], conflict?: SQL): SQL[] {
  const columns = getTableColumns(table);
  const groups = groupByColumns(rows, columns);
  const name = getTableName(table);
  return [...groups].map(([keys, group]) => {
    const used = keys.split(",").map((k) => [k, columns[k]!] as const);
    const target = used.map(([, c]) => `"${c.name}"`).join(", ");
    const source = used.map(([k]) => `x."${k}"`).join(", ");
    const types = used.map(([k, c]) => `"${k}" ${c.getSQLType()}`).join(", ");
    let json = JSON.stringify(group);
    // Rows are cleaned (and counted) only when their JSON shows a character PostgreSQL would refuse.
    if (MAY_NEED_CLEANING.test(json)) json = JSON.stringify(cleanRows(group));
    return sql`${sql.raw(`insert into "${name}" (${target}) select ${source} from json_to_recordset(`)}${json}${sql.raw(`::json) as x(${types})`)}${conflict ? sql` ${conflict}` : sql``}`;
  });
}

/**
 * The rows by the columns they set (their keys with a defined value that name a column): one group, checked
 * without building a string per row, when they all set the same ones, as the ledger's rows do.
 */
function groupByColumns(
  rows: Record<string, unknown>[],
  columns: Record<string, unknown>,
): Map<string, Record<string, unknown>[]> {
  const setBy = (row: Record<string, unknown>) => {
    const keys: string[] = [];
    for (const k in row) if (row[k] !== undefined && columns[k]) keys.push(k);
    return keys;
  };
  const first = rows[0] ? setBy(rows[0]) : [];
  const firstSet = new Set(first);
  const sameAsFirst = (row: Record<string, unknown>) => {
    let n = 0;
    for (const k in row)
      if (row[k] !== undefined && columns[k]) {
        if (!firstSet.has(k)) return false;
        n++;
      }
    return n === first.length;
  };
  if (rows.every(sameAsFirst)) return new Map(rows.length ? [[first.join(","), rows]] : []);
  const groups = new Map<string, Record<string, unknown>[]>();
  for (const row of rows) {
    const keys = setBy(row).join(",");
    const group = groups.get(keys);
    if (group) group.push(row);
    else groups.set(keys, [row]);
  }
  return groups;
}
