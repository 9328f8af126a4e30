import "server-only";
import { and, asc, eq, inArray, sql } from "drizzle-orm";
import { type Database, getDb } from "@/db";
import { rowsOf } from "@/db/client";
import { apiKey, appUser, prompt, sysAgentAudit, sysAgentTurn, tenant } from "@/db/schema";
import { likeContains } from "@/db/sql-text";
import type { PageProvider, ProviderContext } from "@/features/admin-tables/contracts";
import { skillNameProblem } from "@/features/prompts/contracts";
import { FEEDBACK_FILTERS, type FeedbackFilter, parseScoreFilter } from "@/features/scores/contracts";
import {
  feedbackCondition,
  feedbackSummary,
  type ScoreScope,
  scoreDriver,
  scoreFilterCondition,
  scoreSummary,
} from "@/features/scores/server";
import { uuidOr404 } from "@/lib/core/schema/uuid";
import { badFilterValue, uuidFilter } from "../query";
import { sqlProvider } from "../sql-provider";

const t = sysAgentTurn;

/** The ledger row as the pages read it (the replay reads a subset of the same). */
export const ledgerFields = {
  id: t.id,
  startedAt: t.startedAt,
  tenantId: t.tenantId,
  tenantName: tenant.name,
  userId: t.userId,
  userEmail: appUser.email,
  conversationId: t.conversationId,
  runId: t.runId,
  source: t.source,
  status: t.status,
  requestedModel: t.requestedModel,
  servedProvider: t.servedProvider,
  servedAdapter: t.servedAdapter,
  servedModel: t.servedModel,
  attempts: t.attempts,
  fallbackIndex: t.fallbackIndex,
  routing: t.routing,
  units: t.units,
  inputTokens: t.inputTokens,
  cachedInputTokens: t.cachedInputTokens,
  cacheWriteTokens: t.cacheWriteTokens,
  outputTokens: t.outputTokens,
  reasoningTokens: t.reasoningTokens,
  cost: t.cost,
  costStatus: t.costStatus,
  guardrail: t.guardrail,
  rounds: t.rounds,
  firstTokenMs: t.firstTokenMs,
  latencyMs: t.latencyMs,
  toolTrace: t.toolTrace,
  tools: sql<string>`(select string_agg(x->>'name', ', ') from jsonb_array_elements(${t.toolTrace}) x)`,
  errorClass: t.errorClass,
  errorMessage: t.errorMessage,
  cacheHits: t.cacheHits,
  apiKeyId: t.apiKeyId,
  apiKeyName: apiKey.name,
  // Who made the call: an API call's key (its creator only minted the key), else the signed-in user. Only API
  // rows have a key; sample API rows (features/demo/server/sample-data.ts) have none and show their user. A key whose row
  // is gone shows its id, never its creator (a revoked key keeps its row and its name).
  caller: sql<string | null>`coalesce(${apiKey.name}, ${t.apiKeyId}::text, ${appUser.email})`,
  endUser: t.endUser,
  tags: t.tags,
  tagList: sql<string>`array_to_string(${t.tags}, ', ')`,
  requestMetadata: t.requestMetadata,
  promptName: t.promptName,
  promptVersion: t.promptVersion,
  prompt: sql<
    string | null
  >`case when ${t.promptName} is null then null else ${t.promptName} || ' v' || ${t.promptVersion} end`,
  skills: t.skills,
  skillVersions: t.skillVersions,
  // "refunds v2, pdf v1": each skill the turn loaded with the version it got, in load order.
  skillList: sql<string>`array_to_string(array(select s.name || ' v' || s.version
    from unnest(${t.skills}, ${t.skillVersions}) with ordinality as s(name, version, n) order by s.n), ', ')`,
  // People's thumbs ("👍 2 · 👎 1") and the other scores, read for the page's rows only.
  feedback: feedbackSummary(t.id, t.tenantId),
  scoreList: scoreSummary(t.id, t.tenantId),
};

/** The feedback filter's value: up, down or any, else a 422 naming the filter. */
function feedbackFilterValue(raw: string): FeedbackFilter {
  const value = raw.trim();
  if (!(FEEDBACK_FILTERS as readonly string[]).includes(value))
    throw badFilterValue("feedback", `must be one of ${FEEDBACK_FILTERS.join(", ")}`);
  return value as FeedbackFilter;
}

/** The score filter's value parsed (`helpfulness<0.5`), else a 422 naming the filter and what is wrong. */
function scoreFilterValue(raw: string) {
  const parsed = parseScoreFilter(raw);
  if ("problem" in parsed) throw badFilterValue("score", parsed.problem);
  return parsed.filter;
}

/** The turns' tenant for a score filter: the page's tenant (a stand-alone subquery), or each turn's own. */
const scoreScope = (ctx: ProviderContext): ScoreScope => ({ tenantId: ctx.tenantId, turnTenant: t.tenantId });

/** More distinct models than this and the model filter stays a contained match row by row. */
const MODEL_NAMES_CAP = 500;

/**
 * The model filter, contained and case-insensitive ("gpt" finds every GPT model), as an equality on the tenant's
 * models that contain the text: the (tenant, served_model, started_at) index then finds a rare model's turns, and
 * a text no model contains reads nothing, where `ilike` row by row read the tenant's whole ledger (seconds at
 * millions of turns). The names come from a skip scan of that index (one probe a model and partition).
 * For all tenants at once (the super admin), or a tenant with very many models, the row-by-row match stays.
 */
async function servedModelFilter(db: Database, ctx: ProviderContext, value: string) {
  if (!ctx.tenantId) return undefined;
  const names = rowsOf<{ name: string; hit: boolean }>(
    await db.execute(tenantModelsSql(ctx.tenantId, value)),
  );
  if (names.length > MODEL_NAMES_CAP) return undefined;
  const matching = names.filter((r) => r.hit).map((r) => r.name);
  return matching.length ? inArray(t.servedModel, matching) : sql`false`;
}

/**
 * The tag (or skill) filter, resolved: whether any of the tenant's turns carries the value, asked of the column's
 * partial GIN index alone, and `false` when none does. Unresolved, a value the statistics do not know is estimated
 * at about a thousand turns, so PostgreSQL walks the tenant's ledger newest first looking for one: a tag that no
 * turn carries read the whole ledger (0.8 s at 1M turns). Plain index and sequential scans are switched off for
 * this one read so that only the bitmap from the GIN index can answer, which for an absent value is empty at once.
 */
const carriedFilter =
  (column: CarriedColumn, check: (raw: string) => string = (v) => v.trim()) =>
  async (db: Database, ctx: ProviderContext, value: string) => {
    const wanted = check(value);
    const carried = await db.transaction(async (tx) => {
      await tx.execute(TAG_CARRIED_SETTINGS);
      return rowsOf<{ hit: boolean }>(await tx.execute(carriedSql(column, ctx.tenantId, wanted)));
    });
    return carried[0]?.hit ? undefined : sql`false`;
  };

/** The planner settings (for the transaction) under which only the tag index's bitmap answers tagCarriedSql. */
export const TAG_CARRIED_SETTINGS = sql`select set_config('enable_seqscan', 'off', true),
  set_config('enable_indexscan', 'off', true)`;

/** The ledger's text[] columns with a partial GIN index on `cardinality(…) > 0`. */
type CarriedColumn = "tags" | "skills";

/** Whether any turn of the tenant (of every tenant: null) carries the value in the column. */
function carriedSql(column: CarriedColumn, tenantId: string | null, value: string) {
  const scope = tenantId ? sql`tenant_id = ${tenantId} and` : sql``;
  const c = sql.raw(column);
  return sql`select exists (select 1 from sys_agent_turn
    where ${scope} cardinality(${c}) > 0 and ${c} @> array[${value}]::text[]) as hit`;
}

/** Whether any turn of the tenant (of every tenant: null) carries the tag; bench:admin runs it too. */
export const tagCarriedSql = (tenantId: string | null, tag: string) => carriedSql("tags", tenantId, tag);

/** A tenant's models (up to the cap and one more), and whether each contains `value`; bench:admin runs it too. */
export function tenantModelsSql(tenantId: string, value: string) {
  return sql`with recursive m(name) as (
      (select served_model from sys_agent_turn where tenant_id = ${tenantId} and served_model is not null
        order by served_model limit 1)
      union all
      select (select served_model from sys_agent_turn where tenant_id = ${tenantId} and served_model > m.name
        order by served_model limit 1)
      from m where m.name is not null
    )
    select name, name ilike ${likeContains(value)} as hit from m where name is not null
    limit ${MODEL_NAMES_CAP + 1}`;
}

/** The skill filter's value: a skill's name (the rule skills are saved under), or a 422 saying what a name is. */
function skillFilterValue(raw: string): string {
  const name = raw.trim();
  const problem = skillNameProblem(name);
  if (problem) throw badFilterValue("skill", problem);
  return name;
}

/** The key's own tenant too: a key id is unique, but a join that cannot cross tenants is one less thing to trust. */
export const keyJoin = and(eq(apiKey.id, t.apiKeyId), eq(apiKey.tenantId, t.tenantId))!;

/** The usage ledger (sys_agent_turn) for /dev/agent/turns. */
export function agentTurnsProvider(database: () => Promise<Database> = getDb): PageProvider {
  return sqlProvider(database, {
    table: t,
    tenantColumn: t.tenantId,
    idColumn: t.id,
    fields: ledgerFields,
    joins: [
      { table: tenant, on: eq(tenant.id, t.tenantId) },
      { table: appUser, on: eq(appUser.id, t.userId) },
      { table: apiKey, on: keyJoin },
    ],
    sorts: {
      startedAt: { expr: t.startedAt, type: "timestamptz" },
      latencyMs: { expr: sql`coalesce(${t.latencyMs}, -1)`, type: "integer" },
      cost: { expr: sql`coalesce(${t.cost}, -1)`, type: "numeric" },
      inputTokens: { expr: t.inputTokens, type: "integer" },
      outputTokens: { expr: t.outputTokens, type: "integer" },
    },
    filters: {
      // Contained, case-insensitive: "gpt" finds every GPT model.
      servedModel: (v) => sql`${t.servedModel} ilike ${likeContains(v)}`,
      servedAdapter: (v) => eq(t.servedAdapter, v),
      source: (v) => eq(t.source, v as "drawer"),
      user: (v) => inArray(t.userId, sql`(select id from app_user where email ilike ${likeContains(v)})`),
      conversationId: (v) => eq(t.conversationId, uuidFilter("conversationId", v)),
      // A tool whose name contains the text, among the turn's calls (a turn's trace is a few entries).
      tool: (v) =>
        sql`exists (select 1 from jsonb_array_elements(${t.toolTrace}) x where x->>'name' ilike ${likeContains(v)})`,
      // A run's calls: the run id exactly, so the (tenant, run_id, started_at) index serves it.
      runId: (v) => eq(t.runId, v.trim()),
      // The end user exactly as stored (the list shows it), so the (tenant, end_user, started_at) index serves it.
      endUser: (v) => eq(t.endUser, v.trim()),
      // `cardinality(…) > 0` is the tag index's own predicate: without it PostgreSQL cannot use the partial index.
      tag: (v) => sql`cardinality(${t.tags}) > 0 and ${t.tags} @> array[${v.trim()}]::text[]`,
      // Turns that loaded the skill (any version), through the partial GIN index: its predicate is repeated.
      skill: (v) =>
        sql`cardinality(${t.skills}) > 0 and ${t.skills} @> array[${skillFilterValue(v)}]::text[]`,
      // API keys whose name contains the text (a subquery: counts and metrics join nothing). Not correlated on the
      // tenant: a turn's key is its own tenant's, the rows are already the caller's tenant's, and uncorrelated it
      // is a nested loop over the (tenant, api_key_id, started_at) index (900 ms → 0.1 ms for a rare key in 300k).
      apiKey: (v) =>
        inArray(t.apiKeyId, sql`(select k.id from api_key k where k.name ilike ${likeContains(v)})`),
      // One key exactly, by id (the keys list links here): the (tenant, api_key_id, started_at) index.
      apiKeyId: (v) => eq(t.apiKeyId, uuidFilter("apiKeyId", v)),
      // Turns answered (at least in part) from the response cache, or not at all.
      cache: (v) => (v === "hit" ? sql`${t.cacheHits} > 0` : sql`${t.cacheHits} = 0`),
      // Unpriced and assumed rows through their partial index; priced is everything else.
      costStatus: (v) => eq(t.costStatus, v as "priced"),
      // What the tenant's guardrail rules did with the call (rows without rules have none).
      guardrail: (v) => eq(t.guardrail, v as "passed"),
      // A stored prompt by its exact name (the prompt index), and one of its versions.
      promptName: (v) => eq(t.promptName, v.trim()),
      // Turns people gave a thumbs up (down, either): the tenant's own scores, through the score indexes.
      feedback: (v) =>
        feedbackCondition(t.id, { tenantId: null, turnTenant: t.tenantId }, feedbackFilterValue(v)),
      // Turns with a score that fits `name<0.5`, `name>=3`, `name=good`.
      score: (v) =>
        scoreFilterCondition(t.id, { tenantId: null, turnTenant: t.tenantId }, scoreFilterValue(v)),
      promptVersion: (v) => {
        if (!/^\d{1,9}$/.test(v.trim()))
          throw badFilterValue("promptVersion", "must be a version number, such as 3");
        return eq(t.promptVersion, Number(v.trim()));
      },
    },
    // Each keeps the model resolver's or the tag index's answer, negated: the rows kept are most rows, so a page
    // fills from the newest turns at once. Not the id and exact-match filters (a run, a conversation: "all but
    // one" reads nothing useful) nor feedback and score (their subqueries would run for every turn).
    negatable: [
      "servedModel",
      "servedAdapter",
      "source",
      "user",
      "apiKey",
      "endUser",
      "tag",
      "skill",
      "tool",
      "promptName",
      "costStatus",
      "guardrail",
    ],
    // Checked on the rows the tenant's (and time range's) index walk reads: no index of their own.
    numberFilters: {
      latencyMs: t.latencyMs,
      cost: t.cost,
      inputTokens: t.inputTokens,
      outputTokens: t.outputTokens,
    },
    resolvedFilters: {
      servedModel: servedModelFilter,
      tag: carriedFilter("tags"),
      skill: carriedFilter("skills", skillFilterValue),
      // The page's tenant as a constant: the subquery then runs once over the score index, not once per turn.
      feedback: async (_db, ctx, v) => feedbackCondition(t.id, scoreScope(ctx), feedbackFilterValue(v)),
      score: async (_db, ctx, v) => scoreFilterCondition(t.id, scoreScope(ctx), scoreFilterValue(v)),
    },
    // Feedback and score filters read the score index newest scored turn first (each score carries its turn's
    // start): a page of thumbs-down turns costs ~50 index entries, not a walk of the ledger checking each turn.
    drivers: {
      sort: "startedAt",
      filters: {
        feedback: (ctx, v) => scoreDriver(ctx.tenantId, { feedback: feedbackFilterValue(v) }),
        score: (ctx, v) => scoreDriver(ctx.tenantId, { score: scoreFilterValue(v) }),
      },
    },
    dateFilters: { startedAt: t.startedAt },
    segmentColumn: t.status,
    // Models, people, end users and tools from the newest turns; key names from the tenant's keys.
    suggestions: {
      servedModel: { value: t.servedModel, recent: t.startedAt },
      user: { value: appUser.email, recent: t.startedAt },
      apiKey: { table: apiKey, tenantColumn: apiKey.tenantId, value: apiKey.name },
      endUser: { value: t.endUser, recent: t.startedAt },
      runId: { value: t.runId, recent: t.startedAt },
      tag: { value: sql`unnest(${t.tags})`, recent: t.startedAt },
      skill: { value: sql`unnest(${t.skills})`, recent: t.startedAt },
      tool: { value: sql`jsonb_array_elements(${t.toolTrace})->>'name'`, recent: t.startedAt },
      promptName: { table: prompt, tenantColumn: prompt.tenantId, value: prompt.name },
    },
    measures: {
      inputTokens: t.inputTokens,
      outputTokens: t.outputTokens,
      cachedInputTokens: t.cachedInputTokens,
      cost: t.cost,
      latencyMs: t.latencyMs,
    },
    dimensions: {
      servedModel: t.servedModel,
      servedAdapter: t.servedAdapter,
      status: t.status,
      user: appUser.email,
      apiKey: apiKey.name,
      endUser: t.endUser,
      day: sql`date_trunc('day', ${t.startedAt})::date`,
    },
    detail: turnDetail,
  });
}

async function turnDetail(db: Database, ctx: ProviderContext, rawId: string) {
  const id = uuidOr404(rawId);
  const scope = ctx.tenantId ? and(eq(t.id, id), eq(t.tenantId, ctx.tenantId)) : eq(t.id, id);
  const [row] = await db
    .select(ledgerFields)
    .from(t)
    .leftJoin(tenant, eq(tenant.id, t.tenantId))
    .leftJoin(appUser, eq(appUser.id, t.userId))
    .leftJoin(apiKey, keyJoin)
    .where(scope)
    .limit(1);
  if (!row) return null;
  const events = await db
    .select({
      id: sysAgentAudit.id,
      seq: sysAgentAudit.seq,
      type: sysAgentAudit.type,
      createdAt: sysAgentAudit.createdAt,
      payload: sysAgentAudit.payload,
    })
    .from(sysAgentAudit)
    .where(and(eq(sysAgentAudit.tenantId, row.tenantId), eq(sysAgentAudit.turnId, id)))
    .orderBy(asc(sysAgentAudit.seq));
  return {
    row: { ...row, startedAt: row.startedAt.toISOString() },
    events: events.map((e) => ({ ...e, createdAt: e.createdAt.toISOString() })),
  };
}
