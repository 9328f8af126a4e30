import "server-only";
import { getTableColumns, getTableName, type SQL, sql, type Table } from "drizzle-orm";

/**
 * `insert … select … from json_populate_recordset(null::<table>, $1)`: many rows as one JSON parameter, which
 * PostgreSQL parses in C, instead of a parameter per column of every row that drizzle builds and the driver
 * encodes one by one (most of the ledger writer's CPU: bench/gateway-overhead). Rows are drizzle insert objects
 * (camelCase keys, Dates, objects for jsonb, arrays for text[]); the columns are those the rows set, so an
 * unset column keeps its database default, and rows that set different columns go in separate statements.
 * `conflict` is appended as written (the rollup's upsert).
 */
export function jsonInsert(table: Table, rows: Record<string, unknown>[], conflict?: SQL): SQL[] {
  const columns = getTableColumns(table);
  const groups = new Map<string, Record<string, unknown>[]>();
  for (const row of rows) {
    const keys = Object.keys(row)
      .filter((k) => row[k] !== undefined && columns[k])
      .join(",");
    const group = groups.get(keys);
    if (group) group.push(row);
    else groups.set(keys, [row]);
  }
  const name = getTableName(table);
  return [...groups].map(([keys, group]) => {
    const list = keys.split(",").map((k) => `"${columns[k]!.name}"`);
    const json = JSON.stringify(
      group.map((row) => {
        const out: Record<string, unknown> = {};
        for (const k of keys.split(",")) out[columns[k]!.name] = row[k];
        return out;
      }),
    );
    const head = sql.raw(
      `insert into "${name}" (${list.join(", ")}) select ${list.join(", ")} from json_populate_recordset(null::"${name}", `,
    );
    return conflict ? sql`${head}${json}::json) ${conflict}` : sql`${head}${json}::json)`;
  });
}
