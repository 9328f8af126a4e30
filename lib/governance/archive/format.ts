import "server-only";
import { createHash, randomUUID } from "node:crypto";
import { createWriteStream } from "node:fs";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { createInterface } from "node:readline";
import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createGunzip, createGzip } from "node:zlib";
import { type SQL, sql } from "drizzle-orm";
import type { Executor } from "@/db";
import { lowestUuidAt, monthEnd, monthStart } from "./month";
import type { ArchiveTarget, ObjectFacts } from "./target";

export const MANIFEST_FORMAT = "tollgate-ledger-archive";
export const MANIFEST_VERSION = 1;

/** One archived table: its file, its key (the order rows are written, deleted and restored in), its time column. */
export type ArchiveTable = {
  kind: "turns" | "audit";
  table: "sys_agent_turn" | "sys_agent_audit";
  file: string;
  key: readonly string[];
  /** The UUIDv7 column whose month places a row: a turn's id, an event's turn (events follow their turn). */
  monthColumn: string;
  timeColumn: string;
};

export const TURNS: ArchiveTable = {
  kind: "turns",
  table: "sys_agent_turn",
  file: "turns.jsonl.gz",
  key: ["id"],
  monthColumn: "id",
  timeColumn: "started_at",
};
export const AUDIT: ArchiveTable = {
  kind: "audit",
  table: "sys_agent_audit",
  file: "audit.jsonl.gz",
  key: ["turn_id", "seq"],
  monthColumn: "turn_id",
  timeColumn: "created_at",
};
export const TABLES = [TURNS, AUDIT] as const;

export type ManifestFile = ObjectFacts & {
  name: string;
  table: string;
  key: readonly string[];
  rows: number;
  /** The earliest and latest started_at (turns) or created_at (audit), ISO UTC with microseconds; null when empty. */
  minTime: string | null;
  maxTime: string | null;
  columns: string[];
};
export type Manifest = {
  format: typeof MANIFEST_FORMAT;
  version: number;
  tenantId: string;
  month: string;
  writtenAt: string;
  files: Record<ArchiveTable["kind"], ManifestFile>;
};

export const folderOf = (tenantId: string, month: string) => `${tenantId}/${month}`;
export const MANIFEST = "manifest.json";

export function rowsOf<T>(result: unknown): T[] {
  return (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[];
}

const PAGE = 1_000;
const UTC_MICROS = `'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'`;

/** A table's rows of one tenant-month, in key order, as PostgreSQL's own JSON text (a page at a time). */
export async function* monthRows(
  db: Executor,
  t: ArchiveTable,
  tenantId: string,
  month: string,
  page = PAGE,
): AsyncGenerator<{ json: string; time: string }> {
  const lo = lowestUuidAt(monthStart(month));
  const hi = lowestUuidAt(monthEnd(month));
  const table = sql.raw(t.table);
  const mc = sql.raw(`r.${t.monthColumn}`);
  let after: SQL | null = null;
  for (;;) {
    type Row = { j: string; ts: string; k1: string; k2: number | null };
    const rows: Row[] = rowsOf<Row>(
      await db.execute(sql`select row_to_json(r)::text as j,
          to_char(r.${sql.raw(t.timeColumn)} at time zone 'UTC', ${sql.raw(UTC_MICROS)}) as ts,
          r.${sql.raw(t.key[0]!)}::text as k1, ${t.key[1] ? sql.raw(`r.${t.key[1]}`) : sql`null::int`} as k2
        from ${table} r
        where r.tenant_id = ${tenantId}::uuid and ${mc} >= ${lo}::uuid and ${mc} < ${hi}::uuid
          ${after ? sql`and ${after}` : sql``}
        order by ${sql.raw(t.key.map((k) => `r.${k}`).join(", "))}
        limit ${page}`),
    );
    for (const r of rows) yield { json: r.j, time: r.ts };
    if (rows.length < page) return;
    const last: Row = rows.at(-1)!;
    after = t.key[1]
      ? sql`(r.${sql.raw(t.key[0]!)}, r.${sql.raw(t.key[1])}) > (${last.k1}::uuid, ${last.k2}::int)`
      : sql`r.${sql.raw(t.key[0]!)} > ${last.k1}::uuid`;
  }
}

export async function columnsOf(db: Executor, table: string): Promise<string[]> {
  const rows = rowsOf<{ c: string }>(
    await db.execute(sql`select column_name::text as c from information_schema.columns
      where table_schema = current_schema() and table_name = ${table} order by ordinal_position`),
  );
  return rows.map((r) => r.c);
}

/**
 * Writes a table's month as gzip'd JSON Lines to a scratch file while hashing what is written (memory holds a
 * page of rows, never the month), and returns the file with what the manifest says of it.
 */
export async function writeTableFile(
  db: Executor,
  target: ArchiveTarget,
  t: ArchiveTable,
  tenantId: string,
  month: string,
): Promise<{ file: string; facts: Omit<ManifestFile, "columns" | "name" | "table" | "key"> }> {
  await mkdir(target.scratchDir(), { recursive: true });
  const file = path.join(target.scratchDir(), `${tenantId}-${month}-${t.kind}-${randomUUID()}.jsonl.gz`);
  let rows = 0;
  let minTime: string | null = null;
  let maxTime: string | null = null;
  async function* lines() {
    for await (const r of monthRows(db, t, tenantId, month)) {
      rows++;
      if (minTime === null || r.time < minTime) minTime = r.time;
      if (maxTime === null || r.time > maxTime) maxTime = r.time;
      yield `${r.json}\n`;
    }
  }
  const hash = createHash("sha256");
  let bytes = 0;
  const count = new Transform({
    transform(chunk: Buffer, _enc, done) {
      hash.update(chunk);
      bytes += chunk.length;
      done(null, chunk);
    },
  });
  await pipeline(Readable.from(lines()), createGzip(), count, createWriteStream(file));
  return { file, facts: { rows, bytes, sha256: hash.digest("hex"), minTime, maxTime } };
}

/** The lines of an archived file, in the order written (streamed: gunzip and split as it is read). */
export async function* archivedLines(target: ArchiveTarget, key: string): AsyncGenerator<string> {
  const gunzip = createGunzip();
  const source = await target.read(key);
  source.on("error", (error) => gunzip.destroy(error));
  const lines = createInterface({ input: source.pipe(gunzip), crlfDelay: Number.POSITIVE_INFINITY });
  for await (const line of lines) if (line) yield line;
}

/** Batches of `size` from an async iterable. */
export async function* batches<T>(items: AsyncIterable<T>, size: number): AsyncGenerator<T[]> {
  let batch: T[] = [];
  for await (const item of items) {
    batch.push(item);
    if (batch.length >= size) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length) yield batch;
}

export async function readManifest(
  target: ArchiveTarget,
  tenantId: string,
  month: string,
): Promise<Manifest | null> {
  const key = `${folderOf(tenantId, month)}/${MANIFEST}`;
  if (!(await target.has(key))) return null;
  const chunks: Buffer[] = [];
  for await (const chunk of await target.read(key)) chunks.push(chunk as Buffer);
  const manifest = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Manifest;
  if (manifest.format !== MANIFEST_FORMAT || manifest.version !== MANIFEST_VERSION)
    throw new Error(`${target.location(key)} is not a version ${MANIFEST_VERSION} ledger archive manifest`);
  return manifest;
}

/** Throws unless every file the manifest names is stored with the size and sha256 it records. */
export async function verifyFiles(target: ArchiveTarget, manifest: Manifest): Promise<void> {
  for (const f of Object.values(manifest.files)) {
    const key = `${folderOf(manifest.tenantId, manifest.month)}/${f.name}`;
    const stored = await target.facts(key);
    if (!stored || stored.bytes !== f.bytes || stored.sha256 !== f.sha256)
      throw new Error(
        `${target.location(key)} does not match its manifest (${stored ? `${stored.bytes} bytes, sha256 ${stored.sha256}` : "missing"}; expected ${f.bytes} bytes, sha256 ${f.sha256})`,
      );
  }
}
