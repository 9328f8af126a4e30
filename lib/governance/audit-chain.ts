import "server-only";
import { createHash } from "node:crypto";
import { type SQL, sql } from "drizzle-orm";
import { v7 as uuidv7 } from "uuid";
import type { Database } from "@/db";
import { sysAgentAudit, sysAgentAuditChain } from "@/db/schema";
import { cleanRow } from "@/lib/core/text/clean-text";
import { monthOf } from "./archive/month";
import { jsonInsert } from "./json-insert";

/**
 * The tamper-evident audit trail. Every event carries the SHA-256 of its content and of the previous event's hash
 * in its tenant's chain for the UTC month of its `created_at`; the first event of a tenant-month chains from
 * `genesisHash(tenant, month)`. A chain per month, so dropping whole months (retention, archiving, partitions)
 * leaves every other chain verifiable.
 *
 * Writers append under the chain's head row (`sys_agent_audit_chain`), locked in the batch's own transaction:
 * one upsert locks and reads the heads of every tenant-month in the batch (in key order, so two writers never
 * wait on each other crosswise), the events are numbered and hashed here, and the same transaction inserts them
 * and moves the heads. A batch that fails leaves neither rows nor a moved head; a retry calls `chainAudit` again,
 * so its ids, times, places and hashes are all fresh.
 */

/** An audit row as the recorders build it, before it has a place in a chain. */
export type UnchainedAudit = Omit<
  typeof sysAgentAudit.$inferInsert,
  "id" | "createdAt" | "chainSeq" | "hash" | "prevHash"
>;
/** What an event's hash covers, as read back from the table. */
export type HashedFields = {
  id: string;
  tenantId: string;
  userId: string | null;
  turnId: string;
  conversationId: string | null;
  seq: number;
  type: string;
  payload: unknown;
  createdAt: Date;
  chainSeq: number;
  prevHash: string;
};

type Head = { tenantId: string; month: string; seq: number; hash: string; lastAt: Date };

const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");

/** The chain a time falls in: its UTC month, `YYYY-MM`. */
export const chainMonth = monthOf;

/** Where a tenant-month chain starts: a value anyone can recompute, so the first event's link is checked too. */
export const genesisHash = (tenantId: string, month: string) => sha256(`tollgate-audit:${tenantId}:${month}`);

/**
 * JSON with object keys sorted (by UTF-16 code units) and nothing else changed: what `JSON.stringify` writes for
 * the same value otherwise (`toJSON`, undefined dropped, non-finite numbers as null). jsonb keeps values but not
 * key order or spacing, so this is the payload "as stored": equal for the object written and the object read back.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  const json = (value as { toJSON?: () => unknown }).toJSON;
  if (typeof json === "function") return canonicalJson(json.call(value));
  if (Array.isArray(value))
    return `[${value.map((v) => (skipped(v) ? "null" : canonicalJson(v))).join(",")}]`;
  const object = value as Record<string, unknown>;
  const keys = Object.keys(object)
    .filter((k) => !skipped(object[k]))
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(object[k])}`).join(",")}}`;
}

const skipped = (v: unknown) => v === undefined || typeof v === "function" || typeof v === "symbol";

/** The text an event's hash is taken over: a versioned JSON array of its fields in a fixed order. */
export function auditEventText(e: HashedFields): string {
  const fields = [
    "tollgate-audit-v1",
    e.id,
    e.tenantId,
    e.turnId,
    e.conversationId,
    e.userId,
    e.seq,
    e.type,
    e.createdAt.toISOString(),
    e.chainSeq,
    e.prevHash,
  ];
  return `${JSON.stringify(fields).slice(0, -1)},${canonicalJson(e.payload)}]`;
}

export const auditEventHash = (e: HashedFields) => sha256(auditEventText(e));

// What JSON.stringify writes for characters PostgreSQL refuses (see json-insert.ts): the row is cleaned before
// it is hashed, so the hash covers what is stored.
const MAY_NEED_CLEANING = /\\u0000|\\ud[89a-f]/i;

/**
 * Gives `rows` (in the order they are to be chained) their ids, times, places and hashes under the locked heads
 * of their tenant-month chains, and answers the statements that insert them and move the heads: run them in the
 * same transaction as `tx`, after this. Events of one chain in one call share a time: `now`, or the chain's last
 * time if that is later (another replica's clock ahead of this one), so `created_at` never goes back along a chain.
 */
export async function chainAudit(
  tx: Pick<Database, "insert">,
  rows: UnchainedAudit[],
  now = new Date(),
): Promise<SQL[]> {
  if (!rows.length) return [];
  const month = chainMonth(now);
  const keys = [...new Set(rows.map((r) => r.tenantId))].sort();
  const locked = await tx
    .insert(sysAgentAuditChain)
    .values(keys.map((tenantId) => ({ tenantId, month, hash: genesisHash(tenantId, month), lastAt: now })))
    // A no-op update: it takes the row lock (waiting for a writer that holds it) and returns the head as it is.
    .onConflictDoUpdate({
      target: [sysAgentAuditChain.tenantId, sysAgentAuditChain.month],
      set: { seq: sql`${sysAgentAuditChain.seq}` },
    })
    .returning({
      tenantId: sysAgentAuditChain.tenantId,
      month: sysAgentAuditChain.month,
      seq: sysAgentAuditChain.seq,
      hash: sysAgentAuditChain.hash,
      lastAt: sysAgentAuditChain.lastAt,
    });
  const heads = new Map<string, Head & { at: Date }>(
    locked.map((h) => [h.tenantId, { ...h, at: h.lastAt > now ? h.lastAt : now }]),
  );
  const chained = rows.map((row) => {
    const head = heads.get(row.tenantId)!;
    let event = { ...row, id: uuidv7(), createdAt: head.at, chainSeq: head.seq + 1, prevHash: head.hash };
    let text = auditEventText(hashed(event));
    if (MAY_NEED_CLEANING.test(text)) {
      event = cleanRow(event);
      text = auditEventText(hashed(event));
    }
    const hash = sha256(text);
    head.seq = event.chainSeq;
    head.hash = hash;
    head.lastAt = head.at;
    return { ...event, hash };
  });
  return [...jsonInsert(sysAgentAudit, chained), moveHeads([...heads.values()])];
}

const hashed = (e: UnchainedAudit & Omit<HashedFields, keyof UnchainedAudit>): HashedFields => ({
  id: e.id,
  tenantId: e.tenantId,
  userId: e.userId ?? null,
  turnId: e.turnId,
  conversationId: e.conversationId ?? null,
  seq: e.seq,
  type: e.type,
  payload: e.payload,
  createdAt: e.createdAt,
  chainSeq: e.chainSeq,
  prevHash: e.prevHash,
});

function moveHeads(heads: Head[]): SQL {
  const json = JSON.stringify(
    heads.map((h) => ({
      tenant_id: h.tenantId,
      month: h.month,
      seq: h.seq,
      hash: h.hash,
      last_at: h.lastAt,
    })),
  );
  return sql`update sys_agent_audit_chain c set seq = x.seq, hash = x.hash, last_at = x.last_at from json_to_recordset(${json}::json) as x(tenant_id uuid, month text, seq bigint, hash text, last_at timestamptz) where c.tenant_id = x.tenant_id and c.month = x.month`;
}

/** Runs statements as one (`with w0 as (…), w1 as (…) select 1`): one round trip, atomic on its own. */
export async function executeTogether(db: Pick<Database, "execute">, statements: SQL[]): Promise<void> {
  const parts = statements.map((statement, i) => sql`${sql.raw(`w${i}`)} as (${statement})`);
  await db.execute(sql`with ${sql.join(parts, sql`, `)} select 1`);
}

/** Appends audit rows to their chains in a transaction of their own (the per-turn recorder's single events). */
export async function writeChainedAudit(db: Database, rows: UnchainedAudit[]): Promise<void> {
  await db.transaction(async (tx) => executeTogether(tx, await chainAudit(tx, rows)));
}
