import "server-only";
import { and, asc, desc, eq, gt, lt, or, type SQL } from "drizzle-orm";
import type { Database } from "@/db";
import { apiKey, appUser, sysAgentAudit, sysAgentTurn, tenant } from "@/db/schema";
import { keyJoin, ledgerFields } from "@/features/admin-tables/server";
import type { ReplayResponse, ReplayTurn } from "@/features/replay/contracts";
import { scoresWithAuthors } from "@/features/scores/server";
import { notFound } from "@/lib/core/errors/app-error";
import { verifyTurnChain } from "@/lib/governance/audit-verify";

const t = sysAgentTurn;
const a = sysAgentAudit;

/** What the replay shows of the ledger row: the ledger page's own fields, by name. */
export const REPLAY_FIELDS = [
  "id",
  "tenantId",
  "tenantName",
  "userId",
  "userEmail",
  "apiKeyId",
  "apiKeyName",
  "conversationId",
  "source",
  "status",
  "requestedModel",
  "servedProvider",
  "servedAdapter",
  "servedModel",
  "attempts",
  "fallbackIndex",
  "routing",
  "units",
  "inputTokens",
  "cachedInputTokens",
  "cacheWriteTokens",
  "outputTokens",
  "reasoningTokens",
  "cost",
  "costStatus",
  "rounds",
  "firstTokenMs",
  "latencyMs",
  "cacheHits",
  "errorClass",
  "errorMessage",
  "endUser",
  "skills",
  "skillVersions",
  "toolTrace",
  "startedAt",
] as const;

/** A ledger row's skills with their versions side by side (two arrays on the row, one list on the replay). */
export function replayTurnOf(
  row: Omit<ReplayTurn, "skills" | "toolTrace" | "startedAt"> & {
    skills: string[];
    skillVersions: number[];
    toolTrace: unknown;
    startedAt: Date;
  },
): ReplayTurn {
  const { skills, skillVersions, ...rest } = row;
  return {
    ...rest,
    skills: skills.map((name, i) => ({ name, version: skillVersions[i] ?? 0 })),
    toolTrace: (row.toolTrace ?? []) as ReplayTurn["toolTrace"],
    startedAt: row.startedAt.toISOString(),
  };
}

export const pickFields = <T extends object, K extends keyof T>(from: T, keys: readonly K[]): Pick<T, K> =>
  Object.fromEntries(keys.map((k) => [k, from[k]])) as Pick<T, K>;

/**
 * A turn with its audit trail in seq order, that trail checked against its audit chains (the page's badge), and
 * its neighbours by start time, for the replay page. `tenantId`
 * scopes every read (null only for the platform super admin); a turn outside it is not found.
 */
export async function turnReplay(
  db: Database,
  q: { tenantId: string | null; turnId: string },
): Promise<ReplayResponse> {
  const scope = (cond: SQL) => (q.tenantId ? and(eq(t.tenantId, q.tenantId), cond)! : cond);
  const [row] = await db
    .select(pickFields(ledgerFields, REPLAY_FIELDS))
    .from(t)
    .leftJoin(tenant, eq(tenant.id, t.tenantId))
    .leftJoin(appUser, eq(appUser.id, t.userId))
    .leftJoin(apiKey, keyJoin)
    .where(scope(eq(t.id, q.turnId)))
    .limit(1);
  if (!row) throw notFound("turn");

  const [events, [prev], [next], chain, scores] = await Promise.all([
    db
      .select({ seq: a.seq, type: a.type, createdAt: a.createdAt, payload: a.payload })
      .from(a)
      .where(and(eq(a.tenantId, row.tenantId), eq(a.turnId, row.id)))
      .orderBy(asc(a.seq)),
    // Ties on the start time are broken by id (UUIDv7, time-ordered), so every turn has one place in the order.
    db
      .select({ id: t.id })
      .from(t)
      .where(
        scope(or(lt(t.startedAt, row.startedAt), and(eq(t.startedAt, row.startedAt), lt(t.id, row.id)))!),
      )
      .orderBy(desc(t.startedAt), desc(t.id))
      .limit(1),
    db
      .select({ id: t.id })
      .from(t)
      .where(
        scope(or(gt(t.startedAt, row.startedAt), and(eq(t.startedAt, row.startedAt), gt(t.id, row.id)))!),
      )
      .orderBy(asc(t.startedAt), asc(t.id))
      .limit(1),
    verifyTurnChain(db, { tenantId: row.tenantId, turnId: row.id }),
    scoresWithAuthors(db, row.tenantId, { turnId: row.id }),
  ]);
  const turn: ReplayTurn = replayTurnOf(row);
  return {
    turn,
    scores,
    events: events.map((e) => ({ ...e, createdAt: e.createdAt.toISOString() })),
    chain: chain.state === "broken" ? { state: "broken", reason: chain.reason, seq: chain.seq } : chain,
    prev: prev?.id ?? null,
    next: next?.id ?? null,
  };
}
