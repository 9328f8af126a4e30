import "server-only";
import { pipeline, Readable } from "node:stream";
import { createGzip } from "node:zlib";
import { and, eq, gte, isNull, lte, sql } from "drizzle-orm";
import type { Database } from "@/db";
import { ledgerArchive } from "@/db/schema";
import type { LedgerExportQuery } from "@/features/ledger-export/contracts";
import { log } from "@/lib/core/process/log";

const PAGE = 500;

function rowsOf<T>(result: unknown): T[] {
  return (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[];
}

/**
 * The tenant's ledger of the UTC days `from`..`to` as JSON Lines: each turn (by start time, then id) as
 * `{"kind":"turn","row":…}` followed by its audit events in seq order as `{"kind":"audit","row":…}`, rows in
 * PostgreSQL's own JSON. Read a page of turns at a time, so memory holds one page whatever the range.
 */
export async function* ledgerLines(
  db: Database,
  tenantId: string,
  q: LedgerExportQuery,
): AsyncGenerator<string> {
  const from = `${q.from}T00:00:00Z`;
  const end = new Date(Date.parse(`${q.to}T00:00:00Z`) + 86_400_000).toISOString();
  let after: { s: string; id: string } | null = null;
  for (;;) {
    type Turn = { id: string; s: string; line: string };
    const turns: Turn[] = rowsOf<Turn>(
      await db.execute(sql`select t.id::text as id, t.started_at::text as s,
          '{"kind":"turn","row":' || row_to_json(t)::text || '}' as line
        from sys_agent_turn t
        where t.tenant_id = ${tenantId}::uuid and t.started_at >= ${from}::timestamptz and t.started_at < ${end}::timestamptz
          ${after ? sql`and (t.started_at, t.id) > (${after.s}::timestamptz, ${after.id}::uuid)` : sql``}
        order by t.started_at, t.id
        limit ${PAGE}`),
    );
    if (!turns.length) return;
    const events = rowsOf<{ turn_id: string; line: string }>(
      await db.execute(sql`select a.turn_id::text as turn_id, '{"kind":"audit","row":' || row_to_json(a)::text || '}' as line
        from sys_agent_audit a
        where a.tenant_id = ${tenantId}::uuid
          and a.turn_id in (select value::uuid from json_array_elements_text(${JSON.stringify(turns.map((t) => t.id))}::json))
        order by a.turn_id, a.seq`),
    );
    const byTurn = new Map<string, string[]>();
    for (const e of events) byTurn.set(e.turn_id, [...(byTurn.get(e.turn_id) ?? []), e.line]);
    for (const t of turns) {
      yield `${t.line}\n`;
      for (const line of byTurn.get(t.id) ?? []) yield `${line}\n`;
    }
    if (turns.length < PAGE) return;
    const last = turns.at(-1)!;
    after = { s: last.s, id: last.id };
  }
}

/**
 * The export gzip'd as it is read (backpressure from the client reaches the database reads). A failure half-way
 * errors the stream (the client sees a cut download, never a short file that looks whole) and is logged.
 */
export function ledgerExportStream(
  db: Database,
  tenantId: string,
  q: LedgerExportQuery,
): ReadableStream<Uint8Array> {
  const gzip = createGzip();
  pipeline(Readable.from(ledgerLines(db, tenantId, q)), gzip, (error) => {
    if (error && (error as NodeJS.ErrnoException).code !== "ERR_STREAM_PREMATURE_CLOSE")
      log.error({ err: error, tenantId }, "ledger export failed half-way");
  });
  return Readable.toWeb(gzip) as ReadableStream<Uint8Array>;
}

/** The months of the range the tenant archived (and did not restore): their turns are not in the export. */
export async function archivedMonthsIn(
  db: Database,
  tenantId: string,
  q: LedgerExportQuery,
): Promise<string[]> {
  const rows = await db
    .select({ month: ledgerArchive.month })
    .from(ledgerArchive)
    .where(
      and(
        eq(ledgerArchive.tenantId, tenantId),
        isNull(ledgerArchive.restoredAt),
        gte(ledgerArchive.month, q.from.slice(0, 7)),
        lte(ledgerArchive.month, q.to.slice(0, 7)),
      ),
    )
    .orderBy(ledgerArchive.month);
  return rows.map((r) => r.month);
}
