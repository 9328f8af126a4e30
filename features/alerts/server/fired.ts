import "server-only";
import { and, desc, eq, gte, isNotNull, sql } from "drizzle-orm";
import type { Executor } from "@/db";
import { alertEvent, alertRule } from "@/db/schema";

export type FiredAlertRow = {
  id: string;
  severity: "info" | "warning" | "critical";
  title: string;
  ruleName: string | null;
  firedAt: Date;
};

/**
 * The alerts a tenant's rules fired since `since`, newest first (at most `limit`), and how many there were (up
 * to 1,000). Tests and schedule answers (events without a rule) are not alerts. Alerts have no resolved or
 * acknowledged state: one fires once per rule and dedupe key (a threshold and its period), so "since" is what
 * makes one recent. Read on the (tenant, fired_at) index.
 */
export async function listFiredAlerts(
  db: Executor,
  tenantId: string,
  opts: { since: Date; limit: number },
): Promise<{ count: number; capped: boolean; alerts: FiredAlertRow[] }> {
  const where = and(
    eq(alertEvent.tenantId, tenantId),
    gte(alertEvent.firedAt, opts.since),
    isNotNull(alertEvent.ruleId),
  );
  const [rows, counted] = await Promise.all([
    db
      .select({
        id: alertEvent.id,
        severity: alertEvent.severity,
        title: alertEvent.title,
        ruleName: alertRule.name,
        firedAt: alertEvent.firedAt,
      })
      .from(alertEvent)
      .leftJoin(alertRule, and(eq(alertRule.id, alertEvent.ruleId), eq(alertRule.tenantId, tenantId)))
      .where(where)
      .orderBy(desc(alertEvent.firedAt), desc(alertEvent.id))
      .limit(Math.min(Math.max(opts.limit, 1), 50)),
    db
      .select({ n: sql<number>`count(*)::int` })
      .from(sql`(select 1 from ${alertEvent} where ${where} limit ${FIRED_COUNT_CAP + 1}) as capped`),
  ]);
  const n = Number(counted[0]?.n ?? 0);
  return { count: Math.min(n, FIRED_COUNT_CAP), capped: n > FIRED_COUNT_CAP, alerts: rows };
}

const FIRED_COUNT_CAP = 1_000;
