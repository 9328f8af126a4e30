import "server-only";
import { and, asc, desc, eq, gte, inArray, isNotNull, lt, type SQL, sql } from "drizzle-orm";
import type { Database } from "@/db";
import { sysAgentAudit, sysAgentAuditChain } from "@/db/schema";
import { monthEnd, monthStart } from "./archive/month";
import { auditEventHash, chainMonth, genesisHash, type HashedFields } from "./audit-chain";

/**
 * Checking the audit chains (audit-chain.ts says how they are written): each event's hash is recomputed from its
 * stored content, and its `prev_hash` compared with the hash of the event before it in its tenant-month chain.
 * `verifyAuditChains` walks whole chains (the CLI); `verifyTurnChain` checks one turn's events and the events
 * just before them (the replay page's badge).
 */

/** Why an event fails: its content no longer hashes to its hash, or it does not follow the event before it. */
export type BreakReason = "content" | "prev" | "head";
export type ChainBreak = {
  reason: BreakReason;
  /** The event that fails (null for "head": the chain ends before the event its head records). */
  eventId: string | null;
  createdAt: string | null;
  turnId: string | null;
  seq: number | null;
  chainSeq: number | null;
};
export type MonthReport = {
  tenantId: string;
  month: string;
  /** Chained events checked. */
  checked: number;
  /** Events written before hashing (null hash): reported, not checked. */
  unchained: number;
  breaks: ChainBreak[];
  /** The last event's place and hash, as found (what `--heads` prints). */
  last: { chainSeq: number; hash: string } | null;
};

export const BREAK_TEXT: Record<BreakReason, string> = {
  content: "content hash mismatch: the event was altered",
  prev: "prev mismatch: an event before it was removed or the order changed",
  head: "the chain ends before the event its head records: its last events were removed",
};

const a = sysAgentAudit;
const h = sysAgentAuditChain;
const PAGE = 2_000;
const EVENT = {
  id: a.id,
  tenantId: a.tenantId,
  userId: a.userId,
  turnId: a.turnId,
  conversationId: a.conversationId,
  seq: a.seq,
  type: a.type,
  payload: a.payload,
  createdAt: a.createdAt,
  chainSeq: a.chainSeq,
  hash: a.hash,
  prevHash: a.prevHash,
};
/** An event as stored: what its hash covers, and its place and hashes (null on rows written before hashing). */
type StoredEvent = Omit<HashedFields, "chainSeq" | "prevHash"> & {
  chainSeq: number | null;
  hash: string | null;
  prevHash: string | null;
};

const monthText = sql<string>`to_char(${a.createdAt} at time zone 'UTC', 'YYYY-MM')`;

/** Where a chain's kept part starts: after the events retention deleted, else at the genesis value. */
const startOf = (tenantId: string, month: string, head?: { startSeq: number; startHash: string | null }) => ({
  chainSeq: head?.startSeq ?? 0,
  hash: head?.startHash ?? genesisHash(tenantId, month),
});

const breakAt = (reason: BreakReason, e: StoredEvent): ChainBreak => ({
  reason,
  eventId: e.id,
  createdAt: e.createdAt.toISOString(),
  turnId: e.turnId,
  seq: e.seq,
  chainSeq: e.chainSeq,
});

/** The event's own check: does its stored content still hash to its stored hash? */
const contentIntact = (e: StoredEvent) => auditEventHash(e as HashedFields) === e.hash;

/**
 * Every tenant-month chain with events or a head in the range (whole UTC months: a chain is checked from its
 * start), in order of tenant and month. `from`/`to` are UTC days (`YYYY-MM-DD`), each optional.
 */
export async function verifyAuditChains(
  db: Database,
  opts: { tenantId?: string; from?: string; to?: string } = {},
): Promise<MonthReport[]> {
  const fromMonth = opts.from?.slice(0, 7);
  const toMonth = opts.to?.slice(0, 7);
  // Heads first: an event written after this is beyond the head read, so a busy chain is not called truncated.
  const headConds: SQL[] = [];
  if (opts.tenantId) headConds.push(eq(h.tenantId, opts.tenantId));
  if (fromMonth) headConds.push(gte(h.month, fromMonth));
  if (toMonth) headConds.push(sql`${h.month} <= ${toMonth}`);
  const heads = await db
    .select()
    .from(h)
    .where(and(...headConds));
  const eventConds: SQL[] = [];
  if (opts.tenantId) eventConds.push(eq(a.tenantId, opts.tenantId));
  if (fromMonth) eventConds.push(gte(a.createdAt, monthStart(fromMonth)));
  if (toMonth) eventConds.push(lt(a.createdAt, monthEnd(toMonth)));
  const counts = await db
    .select({
      tenantId: a.tenantId,
      month: monthText,
      unchained: sql<number>`count(*) filter (where ${a.hash} is null)::int`,
    })
    .from(a)
    .where(and(...eventConds))
    .groupBy(a.tenantId, monthText);

  const months = new Map<string, { tenantId: string; month: string; unchained: number }>();
  for (const c of counts) months.set(`${c.tenantId} ${c.month}`, { ...c });
  for (const head of heads)
    if (!months.has(`${head.tenantId} ${head.month}`))
      months.set(`${head.tenantId} ${head.month}`, {
        tenantId: head.tenantId,
        month: head.month,
        unchained: 0,
      });
  const headOf = new Map(heads.map((x) => [`${x.tenantId} ${x.month}`, x]));
  const reports: MonthReport[] = [];
  for (const key of [...months.keys()].sort()) {
    const m = months.get(key)!;
    reports.push({ ...(await walkChain(db, m.tenantId, m.month, headOf.get(key))), unchained: m.unchained });
  }
  return reports;
}

async function walkChain(
  db: Database,
  tenantId: string,
  month: string,
  head: typeof h.$inferSelect | undefined,
): Promise<Omit<MonthReport, "unchained">> {
  const report: Omit<MonthReport, "unchained"> = { tenantId, month, checked: 0, breaks: [], last: null };
  let expected = startOf(tenantId, month, head).hash;
  let after: { createdAt: Date; chainSeq: number } | null = null;
  for (;;) {
    const page: StoredEvent[] = await db
      .select(EVENT)
      .from(a)
      .where(
        and(
          eq(a.tenantId, tenantId),
          gte(a.createdAt, monthStart(month)),
          lt(a.createdAt, monthEnd(month)),
          isNotNull(a.hash),
          after
            ? sql`(${a.createdAt}, ${a.chainSeq}) > (${after.createdAt.toISOString()}::timestamptz, ${after.chainSeq}::bigint)`
            : undefined,
        ),
      )
      .orderBy(asc(a.createdAt), asc(a.chainSeq))
      .limit(PAGE);
    for (const e of page) {
      // Written after the head was read: the next run checks it.
      if (head && e.chainSeq! > head.seq) continue;
      report.checked += 1;
      if (!contentIntact(e)) report.breaks.push(breakAt("content", e));
      else if (e.prevHash !== expected) report.breaks.push(breakAt("prev", e));
      // From the stored hash on, so one removed or altered event is named once, not with everyone after it.
      expected = e.hash!;
      report.last = { chainSeq: e.chainSeq!, hash: e.hash! };
    }
    const tail = page.at(-1);
    if (page.length < PAGE || !tail) break;
    after = { createdAt: tail.createdAt, chainSeq: tail.chainSeq! };
  }
  // The head names the chain's last event: a chain that stops short of it, or ends in another event, lost its end.
  const lastSeq = report.last?.chainSeq ?? head?.startSeq ?? 0;
  if (head && (lastSeq < head.seq || (report.last && report.last.hash !== head.hash)))
    report.breaks.push({
      reason: "head",
      eventId: null,
      createdAt: null,
      turnId: null,
      seq: null,
      chainSeq: head.seq,
    });
  return report;
}

export type TurnChainState =
  | { state: "intact"; checked: number }
  | { state: "broken"; reason: "content" | "prev"; eventId: string; seq: number }
  | { state: "unchained" };

/**
 * One turn's events against their chains, for the replay's badge: each hashed event's content, and its link to
 * the event before it in its tenant-month chain (the turn's own previous event when that is the one, else one
 * indexed read). Events written before hashing make the turn "unchained"; the CLI checks whole chains.
 */
export async function verifyTurnChain(
  db: Database,
  q: { tenantId: string; turnId: string },
): Promise<TurnChainState> {
  const events: StoredEvent[] = await db
    .select(EVENT)
    .from(a)
    .where(and(eq(a.tenantId, q.tenantId), eq(a.turnId, q.turnId)))
    .orderBy(asc(a.seq));
  const chained = events.filter((e) => e.hash !== null);
  if (!chained.length) return { state: "unchained" };
  const months = [...new Set(chained.map((e) => chainMonth(e.createdAt)))];
  const heads = await db
    .select({ month: h.month, startSeq: h.startSeq, startHash: h.startHash })
    .from(h)
    .where(and(eq(h.tenantId, q.tenantId), inArray(h.month, months)));
  const byPlace = new Map(chained.map((e) => [`${chainMonth(e.createdAt)} ${e.chainSeq}`, e]));
  for (const e of chained) {
    if (!contentIntact(e)) return { state: "broken", reason: "content", eventId: e.id, seq: e.seq };
    const month = chainMonth(e.createdAt);
    const start = startOf(
      q.tenantId,
      month,
      heads.find((x) => x.month === month),
    );
    const prevHash =
      e.chainSeq === start.chainSeq + 1
        ? start.hash
        : (byPlace.get(`${month} ${e.chainSeq! - 1}`)?.hash ?? (await hashBefore(db, e, month)));
    if (e.prevHash !== prevHash) return { state: "broken", reason: "prev", eventId: e.id, seq: e.seq };
  }
  return { state: "intact", checked: chained.length };
}

/** The hash of the chained event just before `e` in its tenant-month chain (created_at never goes back along it). */
async function hashBefore(db: Database, e: StoredEvent, month: string): Promise<string | null> {
  const [before] = await db
    .select({ hash: a.hash })
    .from(a)
    .where(
      and(
        eq(a.tenantId, e.tenantId),
        gte(a.createdAt, monthStart(month)),
        isNotNull(a.hash),
        sql`(${a.createdAt}, ${a.chainSeq}) < (${e.createdAt.toISOString()}::timestamptz, ${e.chainSeq}::bigint)`,
      ),
    )
    .orderBy(desc(a.createdAt), desc(a.chainSeq))
    .limit(1);
  return before?.hash ?? null;
}
