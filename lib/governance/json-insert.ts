import "server-only";
import { getTableColumns, getTableName, type SQL, sql, type Table } from "drizzle-orm";

/**
 * `insert … select … from json_to_recordset($1) as x(<column> <type>, …)`: many rows as one JSON parameter,
 * which PostgreSQL parses in C, instead of a parameter per column of every row that drizzle builds and the driver
 * encodes one by one (most of the ledger writer's CPU: bench/gateway-overhead). Rows are drizzle insert objects
 * (camelCase keys, Dates, objects for jsonb, arrays for text[]) serialised as they are, each key typed as its
 * column; the columns are those the rows set, so an unset column keeps its database default, and rows that set
 * different columns go in separate statements. `conflict` is appended as written (the rollup's upsert).
 */
export function jsonInsert(table: Table, rows: Record<string, unknown>[], conflict?: SQL): SQL[] {
  const columns = getTableColumns(table);
  const groups = new Map<string, Record<string, unknown>[]>();
  for (const row of rows) {
    let keys = "";
    for (const k in row) if (row[k] !== undefined && columns[k]) keys = keys ? `${keys},${k}` : k;
    const group = groups.get(keys);
    if (group) group.push(row);
    else groups.set(keys, [row]);
  }
  const name = getTableName(table);
  return [...groups].map(([keys, group]) => {
    const used = keys.split(",").map((k) => [k, columns[k]!] as const);
    const target = used.map(([, c]) => `"${c.name}"`).join(", ");
    const source = used.map(([k]) => `x."${k}"`).join(", ");
    const types = used.map(([k, c]) => `"${k}" ${c.getSQLType()}`).join(", ");
    const json = JSON.stringify(group);
    return sql`${sql.raw(`insert into "${name}" (${target}) select ${source} from json_to_recordset(`)}${json}${sql.raw(`::json) as x(${types})`)}${conflict ? sql` ${conflict}` : sql``}`;
  });
}
