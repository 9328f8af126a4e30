// The ledger's scores: the feedback column (thumbs up and down per turn) and the feedback and score filters, each
// kept to the tenant's own scores and served by the score indexes.
import "server-only";
import { type SQL, sql } from "drizzle-orm";
import type { PgColumn } from "drizzle-orm/pg-core";
import { FEEDBACK_SCORE, type FeedbackFilter, type ScoreFilter } from "@/features/scores/contracts";

/**
 * The tenant a filter's scores are read from: the tenant's id (the subquery stands alone, so PostgreSQL runs it once
 * over the (tenant, name, value) index), or for the super admin's all-tenant view the turn's own tenant column.
 */
export type ScoreScope = { tenantId: string | null; turnTenant: PgColumn };

const tenantOf = (scope: ScoreScope) =>
  scope.tenantId ? sql`${scope.tenantId}::uuid` : sql`${scope.turnTenant}`;

/**
 * The turns (ids) with a thumbs up, a thumbs down, or either: `turnId in (…)` over score_tenant_name_value_idx.
 * Thumbs are boolean scores, stored as 1 and 0.
 */
export function feedbackCondition(turnId: PgColumn, scope: ScoreScope, wanted: FeedbackFilter): SQL {
  const value = wanted === "up" ? sql` and s.value = 1` : wanted === "down" ? sql` and s.value = 0` : sql``;
  return sql`${turnId} in (select s.turn_id from score s where s.tenant_id = ${tenantOf(scope)}
    and s.name = ${FEEDBACK_SCORE}${value} and s.turn_id is not null)`;
}

const OPERATOR_SQL = { "<": "<", "<=": "<=", ">": ">", ">=": ">=", "=": "=", "!=": "<>" } as const;

/**
 * The turns with a score of the filter's name that fits it (any one of their scores of that name): values through
 * score_tenant_name_value_idx, categories through score_tenant_name_category_idx.
 */
export function scoreFilterCondition(turnId: PgColumn, scope: ScoreScope, filter: ScoreFilter): SQL {
  const op = sql.raw(OPERATOR_SQL[filter.op]);
  const test =
    "category" in filter
      ? sql`s.category is not null and s.category ${op} ${filter.category}`
      : sql`s.value ${op} ${filter.value}::double precision`;
  return sql`${turnId} in (select s.turn_id from score s where s.tenant_id = ${tenantOf(scope)}
    and s.name = ${filter.name} and ${test} and s.turn_id is not null)`;
}

/**
 * The scores that drive a ledger page filtered by feedback or a score (sql-provider's `drivers`): the tenant's
 * scores of that name that fit, newest scored turn first, read backward from score_tenant_name_turn_idx (each
 * score carries its turn's start), so a page costs a few dozen index entries and primary-key reads however rare
 * the turns are. The super admin's all-tenant view has no tenant to read the index by: undefined, the filter
 * stays a condition.
 */
export function scoreDriver(
  tenantId: string | null,
  filter: { feedback: FeedbackFilter } | { score: ScoreFilter },
): { from: SQL; where: SQL; order: [SQL, SQL] } | undefined {
  if (!tenantId) return undefined;
  let name: string;
  let test: SQL;
  if ("feedback" in filter) {
    name = FEEDBACK_SCORE;
    test =
      filter.feedback === "any"
        ? sql`true`
        : sql`scored.value = ${filter.feedback === "up" ? 1 : 0}::double precision`;
  } else {
    const f = filter.score;
    const op = sql.raw(OPERATOR_SQL[f.op]);
    name = f.name;
    test =
      "category" in f
        ? sql`scored.category is not null and scored.category ${op} ${f.category}`
        : sql`scored.value ${op} ${f.value}::double precision`;
  }
  return {
    from: sql`score scored`,
    where: sql`scored.tenant_id = ${tenantId}::uuid and scored.name = ${name} and scored.turn_id is not null
      and ${test}`,
    order: [sql`scored.turn_started_at`, sql`scored.turn_id`],
  };
}

/**
 * A turn's thumbs, for the ledger's Feedback column: "👍 2 · 👎 1", or null without any. A correlated subquery on
 * score_tenant_turn_idx, evaluated for the page's rows only.
 */
export function feedbackSummary(turnId: PgColumn, turnTenant: PgColumn): SQL<string | null> {
  return sql<string | null>`(select nullif(concat_ws(' · ',
      case when count(*) filter (where s.value = 1) > 0 then '👍 ' || count(*) filter (where s.value = 1) end,
      case when count(*) filter (where s.value = 0) > 0 then '👎 ' || count(*) filter (where s.value = 0) end), '')
    from score s where s.tenant_id = ${turnTenant} and s.turn_id = ${turnId} and s.name = ${FEEDBACK_SCORE})`;
}

/** A turn's other scores, for the ledger's detail: "helpfulness 0.75, verdict good" (at most 20, oldest first). */
export function scoreSummary(turnId: PgColumn, turnTenant: PgColumn): SQL<string | null> {
  return sql<string | null>`(select string_agg(x.name || ' ' || x.shown, ', ' order by x.created_at) from (
      select s.name, s.created_at, case s.type when 'boolean' then (case when s.value = 1 then 'true' else 'false' end)
        when 'categorical' then s.category else s.value::text end as shown
      from score s where s.tenant_id = ${turnTenant} and s.turn_id = ${turnId} and s.name <> ${FEEDBACK_SCORE}
      order by s.created_at limit 20) x)`;
}
