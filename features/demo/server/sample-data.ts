/**
 * Demo history: a deterministic synthetic usage history (ledger rows, their audit trails and the daily rollups)
 * shaped like what GovernanceRecorder writes for real turns, so a new install shows full admin pages and the
 * admin-queries benchmark loads the same data at scale.
 *
 * Sample rows are marked so they can be told from real ones and removed: every sample turn has
 * `conversation_id` NULL (a real turn always belongs to a conversation) and every sample audit payload carries
 * `"sample": true`. Rollup rows cannot carry a mark (they merge with real usage), so removal subtracts exactly
 * what the sample turns added.
 */
import "server-only";
import { type SQL, sql } from "drizzle-orm";
import { v7 as uuidv7 } from "uuid";
import type { Database } from "@/db";
import { ensurePartitions } from "@/db/partitions";
import { addCost, costOf, findPrice } from "@/lib/gateway/pricing";
import {
  IN_ROLLUP,
  LEDGER_ROLLUP_SELECT,
  ROLLUP_COLUMNS,
  ROLLUP_GROUP,
  ROLLUP_UPSERT,
  rollupSet,
} from "@/lib/governance/rollup-sql";

export type SampleTenant = { id: string; userIds: string[] };
export type SampleOptions = {
  turns: number;
  /** The history covers the `days` days before `now` (default 30). */
  days?: number;
  seed?: number;
  now?: Date;
  /** Default: every enabled tenant with its enabled members, from the database. */
  tenants?: SampleTenant[];
  /** Turns per INSERT statement (default 5,000 on Postgres, 1,000 on PGlite). */
  batchSize?: number;
  /**
   * false: the turns and their rollups only, no audit events (default true). For a benchmark whose disk cannot
   * hold the audit trail; such turns are not found by `deleteSampleHistory`, which knows them by their events.
   */
  auditEvents?: boolean;
};
export type SampleResult = { turns: number; auditEvents: number; rollupRows: number };

// --- seeded randomness ---------------------------------------------------------------------------------------

/** sfc32: fast, small, good enough for synthetic data, and the same sequence everywhere for a seed. */
class Rng {
  private a = 0x9e3779b9;
  private b = 0x243f6a88;
  private c = 0xb7e15162;
  private d: number;
  constructor(seed: number) {
    this.d = seed >>> 0;
    for (let i = 0; i < 16; i++) this.next();
  }
  next(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (((this.c << 21) | (this.c >>> 11)) + t) | 0;
    return (t >>> 0) / 4294967296;
  }
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(xs: readonly T[]): T {
    return xs[Math.floor(this.next() * xs.length)]!;
  }
  token(length: number, alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"): string {
    let s = "";
    for (let i = 0; i < length; i++) s += alphabet[Math.floor(this.next() * alphabet.length)];
    return s;
  }
  fill(bytes: Uint8Array): void {
    for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(this.next() * 256);
  }
}

class Weighted<T> {
  private readonly cumulative: number[] = [];
  private readonly items: T[] = [];
  constructor(entries: readonly (readonly [T, number])[]) {
    let sum = 0;
    for (const [item, weight] of entries) {
      sum += weight;
      this.items.push(item);
      this.cumulative.push(sum);
    }
  }
  /** From a record of weights by key. */
  static of<K extends string>(weights: Record<K, number>): Weighted<K> {
    return new Weighted(Object.entries(weights) as [K, number][]);
  }
  pick(rng: Rng): T {
    const x = rng.next() * this.cumulative[this.cumulative.length - 1]!;
    let i = 0;
    while (i < this.cumulative.length - 1 && this.cumulative[i]! <= x) i++;
    return this.items[i]!;
  }
}

// --- what the history is made of -----------------------------------------------------------------------------

type Adapter = "openai" | "anthropic" | "offline";
type Candidate = { provider: string; adapter: Adapter; model: string };
type Route = { alias: string; candidates: Candidate[] };
const openai = (model: string): Candidate => ({ provider: "openai", adapter: "openai", model });
const anthropic = (model: string): Candidate => ({ provider: "anthropic", adapter: "anthropic", model });
// Model aliases with their candidate chains, as a gateway config would define them.
const ROUTES = {
  default: { alias: "default", candidates: [openai("gpt-4o-mini"), anthropic("claude-haiku-4-5")] },
  smart: { alias: "smart", candidates: [anthropic("claude-sonnet-4-5"), openai("gpt-4.1")] },
  gpt41: { alias: "gpt-4.1", candidates: [openai("gpt-4.1"), anthropic("claude-sonnet-4-5")] },
  fast: { alias: "fast", candidates: [anthropic("claude-haiku-4-5"), openai("gpt-4o-mini")] },
  offline: {
    alias: "offline-demo",
    candidates: [{ provider: "offline", adapter: "offline", model: "offline-demo" }],
  },
} satisfies Record<string, Route>;
type RouteKey = keyof typeof ROUTES;
const routes = (weights: Partial<Record<RouteKey, number>>) =>
  new Weighted(Object.entries(weights).map(([k, w]) => [ROUTES[k as RouteKey], w as number] as const));
const DRAWER_ROUTES = routes({ default: 38, smart: 18, gpt41: 12, fast: 10, offline: 22 });
const API_ROUTES = routes({ default: 50, gpt41: 25, smart: 15, fast: 10 });
// Time to first token (ms) and streaming speed (ms per output token).
const SPEED: Record<string, { ttft: [number, number]; msPerToken: number }> = {
  "gpt-4o-mini": { ttft: [300, 900], msPerToken: 9 },
  "gpt-4.1": { ttft: [450, 1_600], msPerToken: 14 },
  "claude-sonnet-4-5": { ttft: [700, 2_200], msPerToken: 16 },
  "claude-haiku-4-5": { ttft: [350, 1_000], msPerToken: 8 },
  "offline-demo": { ttft: [25, 60], msPerToken: 2 },
};

const SOURCES = Weighted.of({ drawer: 80, api: 14, schedule: 6 });
type Status = "success" | "failed" | "stopped" | "limit" | "interrupted";
const STATUSES = Weighted.of<Status>({ success: 87, failed: 5, stopped: 4, limit: 3, interrupted: 1 });
// About 2.3 tool calls per drawer or schedule turn (API turns run none): with a model call per round and the
// answer, about seven audit events per turn.
const TOOL_COUNTS = new Weighted([18, 12, 20, 22, 28].map((weight, count) => [count, weight] as const));
const FAILURES = Weighted.of({
  server: 30,
  rate_limited: 25,
  timeout: 20,
  connection: 5,
  stream_interrupted: 20,
});
const FAILURE_TEXT: Record<string, string> = {
  server: "500 The server had an error while processing your request.",
  rate_limited: "429 Rate limit reached for requests per minute.",
  timeout: "no first token within 30000 ms",
  connection: "fetch failed (ECONNRESET)",
};
const failureMessage = (errorClass: string, alias: string) =>
  errorClass === "stream_interrupted"
    ? "the answer was cut off after it started: the provider's stream ended before the answer was complete"
    : `no deployment of "${alias}" could answer: ${FAILURE_TEXT[errorClass]}`;
const FALLBACK_CAUSES = Weighted.of({ server: 45, rate_limited: 30, timeout: 15, auth: 10 });
// Busy-ness of each local hour of the day (0-23), as a share of the peak.
const LOCAL_HOUR_RHYTHM = [
  0.05, 0.03, 0.02, 0.02, 0.03, 0.06, 0.15, 0.35, 0.7, 0.95, 1, 0.95, 0.75, 0.9, 1, 0.95, 0.85, 0.65, 0.45,
  0.35, 0.3, 0.25, 0.15, 0.08,
];
// biome-ignore format: a word list
const OFFERED_TOOLS = [
  "query_orders", "get_order", "current_time", "convert_time", "remember", "recall", "forget", "web_fetch",
  "web_search", "todo_list", "delegate", "schedule_create", "schedule_list", "schedule_update", "schedule_delete",
  "task_start", "task_output", "task_stop",
];
// biome-ignore format: a word list
const CUSTOMERS = [
  "Wile E. Coyote",
  "Road Runner Ltd",
  "Marvin Corp",
  "Elmer Fudd",
  "Hank Scorpio",
  "Homer Simpson",
];
const ORDER_STATUSES = ["open", "shipped", "delivered", "cancelled"];
// biome-ignore format: a word list
const ZONES = [
  "Europe/Berlin",
  "America/New_York",
  "Asia/Shanghai",
  "America/Los_Angeles",
  "UTC",
  "Asia/Tokyo",
];
const SENTENCES = [
  "Shipping rates for parcels under 2 kg stay unchanged until the end of the quarter.",
  "The return window is 30 days from delivery for unused items in their original packaging.",
  "Our support team answers within one business day; urgent issues go through the status page.",
  "Version 4.2 adds bulk export, faster search and a new audit view for administrators.",
  "Prices in the EU include VAT; business customers can enter a VAT number at checkout.",
  "Scheduled maintenance on Sunday 02:00-03:00 UTC may briefly delay order confirmations.",
];
const GENERAL_PROMPTS = [
  "Draft a polite reply to a customer asking for a refund on a late delivery.",
  "Summarize the key points of our returns policy in three bullets.",
  "Translate 'your order has been delayed' into German and French.",
  "Write a SQL query that counts orders per day for the last week.",
  "Why does my request fail with 401? I used the key [masked:openai_key].",
  "Give me three subject lines for the spring sale newsletter.",
  "Explain the difference between gross and net margin in simple words.",
  "Rewrite this paragraph so it sounds friendlier.",
  "The webhook sends Authorization: Bearer [masked:bearer] — is that header format right?",
  "Check this card number for me: [masked:card …4242]",
];

type ToolCtx = { letter: string; at: number };
type ToolSpec = {
  name: string;
  weight: number;
  ms: [number, number];
  /** Refused for some users (a guardrail event), like an admin-only tool. */
  guarded?: boolean;
  failRate: number;
  failures: { kind: string; message: string; ms?: number }[];
  prompts: string[];
  args(rng: Rng, ctx: ToolCtx): Record<string, unknown>;
  result(rng: Rng, args: Record<string, unknown>, ctx: ToolCtx): unknown;
};
const order = (rng: Rng, letter: string, number = `${letter}-${rng.int(1001, 1040)}`) => ({
  number,
  customer: rng.pick(CUSTOMERS),
  status: rng.pick(ORDER_STATUSES),
  totalUsd: (rng.int(500, 250_000) / 100).toFixed(2),
});
// biome-ignore format: one compact block per tool
const TOOLS: ToolSpec[] = [
  {
    name: "query_orders", weight: 18, ms: [6, 60], failRate: 0.01,
    failures: [{ kind: "error", message: "canceling statement due to statement timeout" }],
    prompts: ["Which orders are still open?", "List the cancelled orders from this month.", "What did Marvin Corp order?"],
    args: (rng) => (rng.chance(0.6) ? { status: rng.pick(ORDER_STATUSES) } : { customer: rng.pick(CUSTOMERS), limit: 20 }),
    result: (rng, _args, ctx) => {
      const orders = Array.from({ length: rng.int(0, 6) }, () => order(rng, ctx.letter));
      return { orders, count: orders.length };
    },
  },
  {
    name: "get_order", weight: 14, ms: [4, 40], failRate: 0.08,
    failures: [{ kind: "error", message: "no such order" }],
    prompts: ["What is the status of order 1003?", "Has order 1002 shipped yet?", "What was the total of my last order?"],
    args: (rng, ctx) => ({ orderId: `${ctx.letter}-${rng.int(1001, 1040)}` }),
    result: (rng, args, ctx) => order(rng, ctx.letter, String(args.orderId)),
  },
  {
    name: "current_time", weight: 10, ms: [1, 4], failRate: 0.02,
    failures: [{ kind: "error", message: "unknown time zone: Mars/Olympus" }],
    prompts: ["What time is it in Shanghai right now?", "Is the Berlin office open at the moment?"],
    args: (rng) => ({ timeZone: rng.pick(ZONES) }),
    result: (_rng, args, ctx) => ({ utc: new Date(ctx.at).toISOString(), timeZone: args.timeZone }),
  },
  {
    name: "remember", weight: 8, ms: [5, 30], failRate: 0.01,
    failures: [{ kind: "invalid arguments", message: "note: too long" }],
    prompts: ["Remember that I prefer answers as bullet points.", "Note that the staging token is [masked:bearer]."],
    args: (rng) =>
      ({ note: rng.pick(["Prefers bullet points", "Team stand-up is at 09:30", "Staging password=[masked]"]) }),
    result: (rng) => ({ saved: true, notes: rng.int(1, 12) }),
  },
  {
    name: "recall", weight: 10, ms: [4, 25], failRate: 0,
    failures: [],
    prompts: ["What do you remember about my preferences?", "What did I ask you to note last week?"],
    args: (rng) => (rng.chance(0.5) ? { query: rng.pick(["prefer", "stand-up", "staging"]) } : {}),
    result: (rng) => ({ notes: Array.from({ length: rng.int(0, 3) }, (_, i) => ({ note: `Note ${i + 1}` })) }),
  },
  {
    name: "web_fetch", weight: 16, ms: [250, 4_500], failRate: 0.12,
    failures: [
      { kind: "error", message: "HTTP 404 Not Found" },
      { kind: "timeout", message: "web_fetch timed out after 15000 ms", ms: 15_000 },
      { kind: "error", message: "blocked: the address is on a private network" },
    ],
    prompts: ["Read https://example.com/pricing and summarize the plans.", "What does the status page say right now?"],
    args: (rng) => ({
      url: rng.pick([
        "https://example.com/pricing",
        "https://status.example.com/",
        "https://docs.example.org/changelog",
        "https://example.com/api/report?token=[masked]",
      ]),
    }),
    result: (rng, args) => ({
      url: args.url,
      status: 200,
      contentType: "text/html",
      text: Array.from({ length: rng.int(3, 9) }, () => rng.pick(SENTENCES)).join(" "),
    }),
  },
  {
    name: "todo_list", weight: 8, ms: [1, 3], failRate: 0,
    failures: [],
    prompts: ["Plan the steps to migrate our customers to the new plan.", "Help me prepare the quarterly review."],
    args: (rng) => ({
      plan: ["Collect the numbers", "Draft the summary", "Review with the team"]
        .slice(0, rng.int(1, 3))
        .map((step, i) => ({ step, status: i === 0 ? "in_progress" : "pending" })),
    }),
    result: (_rng, args) => ({ ok: true, steps: (args.plan as unknown[]).length, explanation: null }),
  },
  {
    name: "delegate", weight: 6, ms: [2_500, 16_000], guarded: true, failRate: 0.05,
    failures: [{ kind: "timeout", message: "delegate timed out after 60000 ms", ms: 60_000 }],
    prompts: ["Research our three biggest customers and compare their order volume."],
    args: (rng) => ({ task: rng.pick(["Compare order volume per customer", "Summarize open support themes"]) }),
    result: (rng) => ({ answer: rng.pick(SENTENCES) }),
  },
  {
    name: "schedule_create", weight: 5, ms: [5, 40], guarded: true, failRate: 0.05,
    failures: [{ kind: "invalid arguments", message: "cron: expected 5 fields" }],
    prompts: ["Every weekday at 9, send me the list of open orders.", "Remind me every Monday to review refunds."],
    args: (rng) => ({ cron: rng.pick(["0 9 * * 1-5", "0 8 * * 1", "30 17 * * 5"]), message: "List the open orders" }),
    result: (rng, args) => ({ id: rng.token(8, "0123456789abcdef"), cron: args.cron, timeZone: rng.pick(ZONES) }),
  },
];
const TOOL_PICK = new Weighted(TOOLS.map((t) => [t, t.weight] as const));

// --- inserting -----------------------------------------------------------------------------------------------

type TraceEntry = { name: string; durationMs: number; ok: boolean; error?: string };
// biome-ignore format: the ledger row, compact
type TurnRow = {
  id: string; tenant_id: string; user_id: string; source: string; requested_model: string;
  served_provider: string | null; served_adapter: string | null; served_model: string | null;
  attempts: number; fallback_index: number | null;
  input_tokens: number; cached_input_tokens: number; cache_write_tokens: number; output_tokens: number;
  reasoning_tokens: number; cost: string | null; tool_trace: TraceEntry[]; rounds: number; started_at: string;
  first_token_ms: number | null; latency_ms: number | null; status: Status;
  error_class: string | null; error_message: string | null;
};
// biome-ignore format: the audit row, compact
type AuditRow = {
  id: string; tenant_id: string; user_id: string; turn_id: string; seq: number; type: string;
  payload: Record<string, unknown>; created_at: string;
};

const TURN_COLUMNS = `id uuid, tenant_id uuid, user_id uuid, source text, requested_model text, served_provider text,
  served_adapter text, served_model text, attempts int, fallback_index int, input_tokens int, cached_input_tokens int,
  cache_write_tokens int, output_tokens int, reasoning_tokens int, cost numeric, tool_trace jsonb, rounds int,
  started_at timestamptz, first_token_ms int, latency_ms int, status text, error_class text, error_message text`;
const AUDIT_COLUMNS =
  "id uuid, tenant_id uuid, user_id uuid, turn_id uuid, seq int, type text, payload jsonb, created_at timestamptz";
const names = (columns: string) => sql.raw(columns.replace(/ [a-z]+(,|$)/g, "$1"));

/**
 * Generates `turns` sample turns over the last `days` days with their audit events, and adds them to the daily
 * rollups. Deterministic for (seed, now, tenants). The ledger's partitions for those days are made first, so the
 * rows go straight to their own (not through the DEFAULT partition).
 */
export async function generateSampleHistory(
  db: Database,
  kind: "postgres" | "pglite",
  opts: SampleOptions,
): Promise<SampleResult> {
  const tenants = (opts.tenants ?? (await sampleTenants(db))).filter((t) => t.userIds.length > 0);
  const result: SampleResult = { turns: 0, auditEvents: 0, rollupRows: 0 };
  if (!tenants.length || opts.turns <= 0) return result;
  const batchSize = opts.batchSize ?? (kind === "postgres" ? 5_000 : 1_000);
  const nowMs = (opts.now ?? new Date()).getTime();
  await ensurePartitions(db, {
    now: new Date(nowMs),
    from: new Date(nowMs - (opts.days ?? 30) * 24 * 3_600_000),
  });
  const gen = new HistoryGenerator(opts.seed ?? 1, tenants);
  const rollupKeys = new Set<string>();
  let turns: TurnRow[] = [];
  let audit: AuditRow[] = [];
  // One batch in the database while Node generates the next: a core each. (Two batches at once measured
  // slower on two cores: the second competes with Node for CPU.)
  let pending: Promise<void> = Promise.resolve();
  const flush = async () => {
    await pending;
    if (!turns.length) return;
    // .then starts the query now (Drizzle's query is lazy: awaiting it twice would run it twice).
    pending = db.execute(insertBatch(turns, audit)).then(() => undefined);
    // A failure surfaces at the next `await pending`; until then it must not count as unhandled.
    pending.catch(() => undefined);
    result.turns += turns.length;
    result.auditEvents += audit.length;
    turns = [];
    audit = [];
  };
  for (const at of gen.startTimes(opts.turns, opts.days ?? 30, nowMs)) {
    const { turn, events } = gen.turn(at.time, at.tenant);
    turns.push(turn);
    if (opts.auditEvents !== false) for (const e of events) audit.push(e);
    const model = turn.served_model ?? turn.requested_model;
    const day = turn.started_at.slice(0, 10);
    const adapter = turn.served_adapter ?? "none";
    rollupKeys.add(`${turn.tenant_id}|${day}|${turn.user_id}|${turn.source}|${adapter}|${model}`);
    if (turns.length >= batchSize) await flush();
  }
  await flush();
  // A failure rejects the call; the batches before it stay, each whole.
  await pending;
  result.rollupRows = rollupKeys.size;
  return result;
}

/**
 * One statement per batch: the turns, their rollup (an INSERT … SELECT … GROUP BY … ON CONFLICT DO UPDATE over
 * exactly the rows just inserted, added to what is there, as the recorder does) and their audit events. A batch
 * is all in or all out, so the rollups always equal the ledger.
 */
function insertBatch(turns: TurnRow[], audit: AuditRow[]): SQL {
  // Without audit events the statement ends on the rollup; `select 1` only because a WITH needs a statement.
  const last = audit.length
    ? sql`insert into sys_agent_audit (${names(AUDIT_COLUMNS)})
    select ${names(AUDIT_COLUMNS)} from json_to_recordset(${JSON.stringify(audit)}::json) as a(${sql.raw(AUDIT_COLUMNS)})`
    : sql`select 1`;
  return sql`with inserted as (
      insert into sys_agent_turn (${names(TURN_COLUMNS)})
      select ${names(TURN_COLUMNS)} from json_to_recordset(${JSON.stringify(turns)}::json) as r(${sql.raw(TURN_COLUMNS)})
      returning *
    ), rollup as (
      insert into usage_daily (${ROLLUP_COLUMNS})
      select ${LEDGER_ROLLUP_SELECT} from inserted where ${IN_ROLLUP}
      group by ${ROLLUP_GROUP} order by ${ROLLUP_GROUP}
      ${ROLLUP_UPSERT}
    )
    ${last}`;
}

/** Every enabled tenant with its enabled members, in a stable order (slug, e-mail) so a seed means one history. */
export async function sampleTenants(db: Database): Promise<SampleTenant[]> {
  const rows = rowsOf<{ tenant_id: string; user_id: string }>(
    await db.execute(sql`select t.id as tenant_id, u.id as user_id
      from tenant t join membership m on m.tenant_id = t.id join app_user u on u.id = m.user_id
      where not t.disabled and not u.disabled order by t.slug, lower(u.email)`),
  );
  const byTenant = new Map<string, string[]>();
  for (const r of rows) byTenant.set(r.tenant_id, [...(byTenant.get(r.tenant_id) ?? []), r.user_id]);
  return [...byTenant].map(([id, userIds]) => ({ id, userIds }));
}

/** The sample turns: no conversation, and a first (`request`) audit event marked sample. */
const SAMPLE_TURNS = sql`select t.id from sys_agent_turn t where t.conversation_id is null and exists (
  select 1 from sys_agent_audit a where a.turn_id = t.id and a.seq = 1 and a.payload @> '{"sample": true}')`;

/**
 * Removes every sample turn and its audit events, and subtracts exactly what they added to the rollups (rollup
 * rows left with nothing are deleted). Real turns, their events and their share of the rollups are untouched.
 */
export async function deleteSampleHistory(db: Database): Promise<SampleResult> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`update usage_daily u set ${rollupSet((c) => `u.${c} - s.${c}`)}
      from (select ${LEDGER_ROLLUP_SELECT} from sys_agent_turn where id in (${SAMPLE_TURNS}) and ${IN_ROLLUP}
            group by ${ROLLUP_GROUP}) s
      where (u.tenant_id, u.day, u.user_id, u.source, u.served_adapter, u.served_model)
          = (s.tenant_id, s.day, s.user_id, s.source, s.served_adapter, s.served_model)`);
    const [emptied] = rowsOf<{ n: number }>(
      await tx.execute(sql`with gone as (delete from usage_daily where requests = 0 and input_tokens = 0
        and cached_input_tokens = 0 and cache_write_tokens = 0 and output_tokens = 0 and cost = 0 returning 1)
        select count(*)::int as n from gone`),
    );
    // One statement, one snapshot: the audit rows that identify the turns stay visible while both are deleted.
    const [gone] = rowsOf<{ turns: number; audit: number }>(
      await tx.execute(sql`with turns as (delete from sys_agent_turn where id in (${SAMPLE_TURNS}) returning id),
        audit as (delete from sys_agent_audit where turn_id in (select id from turns) returning 1)
        select (select count(*) from turns)::int as turns, (select count(*) from audit)::int as audit`),
    );
    return { turns: gone?.turns ?? 0, auditEvents: gone?.audit ?? 0, rollupRows: emptied?.n ?? 0 };
  });
}

/** Result rows, whichever driver answered (postgres-js: the array itself; PGlite: `rows`). */
export function rowsOf<T>(result: unknown): T[] {
  return (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[];
}

// --- the generator -------------------------------------------------------------------------------------------

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** The agent's default `maxToolLoops`: a `limit` turn ran this many tool rounds, then one answer round. */
const MAX_TOOL_LOOPS = 5;

type TenantPlan = SampleTenant & {
  users: Weighted<string>;
  weight: number;
  utcOffset: number;
  letter: string;
};
type Round = { calls: ToolSpec[]; answer: boolean; fallback: boolean };

class HistoryGenerator {
  private readonly rng: Rng;
  private readonly plans: TenantPlan[];
  private readonly uuidBytes = new Uint8Array(16);

  constructor(seed: number, tenants: SampleTenant[]) {
    this.rng = new Rng(seed);
    // Tenants differ in size and time zone (so their busy hours differ); users in how much they use the agent.
    const offsets = [-5, 1, 8, -8, 5.5, 0, 9, -3];
    this.plans = tenants.map((t, i) => ({
      ...t,
      users: new Weighted(t.userIds.map((u, j) => [u, 1 / (j + 1) ** 0.7] as const)),
      weight: 1 / (i + 1) ** 0.6,
      utcOffset: offsets[i % offsets.length]!,
      letter: String.fromCharCode(65 + (i % 26)),
    }));
  }

  /** `n` start times in increasing order: busier in each tenant's working hours and on weekdays, and growing. */
  *startTimes(n: number, days: number, now: number): Generator<{ time: number; tenant: TenantPlan }> {
    // Ends a few minutes ago: a turn still inside its latency at `now` would be running, not closed.
    const end = now - 5 * MINUTE;
    const start = end - days * DAY;
    const noise = this.plans.map(() => Array.from({ length: days + 1 }, () => 0.8 + 0.4 * this.rng.next()));
    const slots: { from: number; to: number; weights: number[]; total: number }[] = [];
    for (let from = start; from < end; from += HOUR) {
      const to = Math.min(from + HOUR, end);
      const growth = 0.75 + 0.5 * ((from - start) / (end - start));
      const weights = this.plans.map((p, i) => {
        const local = new Date(from + p.utcOffset * HOUR);
        const weekday = local.getUTCDay() % 6 === 0 ? 0.35 : 1;
        const dayNoise = noise[i]![Math.floor((from - start) / DAY)]!;
        return (
          p.weight *
          LOCAL_HOUR_RHYTHM[local.getUTCHours()]! *
          weekday *
          growth *
          dayNoise *
          ((to - from) / HOUR)
        );
      });
      slots.push({ from, to, weights, total: weights.reduce((a, b) => a + b, 0) });
    }
    const total = slots.reduce((s, x) => s + x.total, 0);
    let cumulative = 0;
    let emitted = 0;
    for (const slot of slots) {
      cumulative += slot.total;
      const count = Math.round((cumulative / total) * n) - emitted;
      emitted += count;
      const tenants = new Weighted(this.plans.map((p, i) => [p, slot.weights[i]!] as const));
      const span = slot.to - slot.from;
      const times = Array.from({ length: count }, () => slot.from + Math.floor(this.rng.next() * span));
      times.sort((a, b) => a - b);
      for (const time of times) yield { time, tenant: tenants.pick(this.rng) };
    }
  }

  /** A UUIDv7 for that millisecond, its random bits from the seeded generator. */
  private uuid(msecs: number): string {
    this.rng.fill(this.uuidBytes);
    return uuidv7({ msecs, random: this.uuidBytes });
  }

  /** One turn as the recorder would have left it, with its audit events in the order they happened. */
  turn(at: number, tenant: TenantPlan): { turn: TurnRow; events: AuditRow[] } {
    const rng = this.rng;
    const source = SOURCES.pick(rng);
    let status = STATUSES.pick(rng);
    // A schedule has nobody to press Stop, and API tools are passed through rather than run in a loop.
    if ((status === "stopped" && source === "schedule") || (status === "limit" && source === "api"))
      status = "success";
    let route = (source === "api" ? API_ROUTES : DRAWER_ROUTES).pick(rng);
    // The offline demo model has no upstream to fail.
    if (status === "failed" && route.candidates.length < 2) route = ROUTES.default;
    const userId = tenant.users.pick(rng);
    const turnId = this.uuid(at);
    const ctx: ToolCtx = { letter: tenant.letter, at };
    const events: AuditRow[] = [];
    const audit = (offset: number, type: string, payload: Record<string, unknown>) => {
      const msecs = at + Math.round(offset);
      events.push({
        id: this.uuid(msecs),
        tenant_id: tenant.id,
        user_id: userId,
        turn_id: turnId,
        seq: events.length + 1,
        type,
        // Offsets from the turn's start, as the per-turn recorder writes them (an API call's are not recorded).
        payload:
          source === "api"
            ? { ...payload, sample: true }
            : { ...payload, atMs: Math.round(offset), sample: true },
        created_at: new Date(msecs).toISOString(),
      });
    };

    // Tool calls in rounds of one or two (a limit turn: one call in each of the maximum number of rounds).
    const nTools =
      status === "interrupted" || source === "api"
        ? 0
        : status === "limit"
          ? MAX_TOOL_LOOPS
          : TOOL_COUNTS.pick(rng);
    const rounds: Round[] = [];
    for (let left = nTools; left > 0; ) {
      const k = status === "limit" ? 1 : Math.min(left, rng.chance(0.35) ? 2 : 1);
      rounds.push({
        calls: Array.from({ length: k }, () => TOOL_PICK.pick(rng)),
        answer: false,
        fallback: false,
      });
      left -= k;
    }
    const firstTool = rounds[0]?.calls[0];
    audit(rng.int(1, 6), "request", {
      model: route.alias,
      source,
      message: firstTool && rng.chance(0.85) ? rng.pick(firstTool.prompts) : rng.pick(GENERAL_PROMPTS),
      toolsOffered: source === "api" || status === "interrupted" ? [] : OFFERED_TOOLS,
    });
    const row: TurnRow = {
      id: turnId,
      tenant_id: tenant.id,
      user_id: userId,
      source,
      requested_model: route.alias,
      served_provider: null,
      served_adapter: null,
      served_model: null,
      attempts: 0,
      fallback_index: null,
      input_tokens: 0,
      cached_input_tokens: 0,
      cache_write_tokens: 0,
      output_tokens: 0,
      reasoning_tokens: 0,
      cost: null,
      tool_trace: [],
      rounds: 0,
      started_at: new Date(at).toISOString(),
      first_token_ms: null,
      latency_ms: null,
      status,
      error_class: null,
      error_message: null,
    };
    // A crashed process left the row running and the sweep marked it interrupted: nothing else was written.
    if (status === "interrupted") {
      row.error_class = "interrupted";
      row.error_message = "the process handling this turn stopped before it finished";
      return { turn: row, events };
    }

    // Where the turn ends: its answer round (success, limit), a failed round, or Stop while a round streams or
    // while a tool runs (then that round's last call is cancelled and no answer round follows).
    const failure = status === "failed" ? FAILURES.pick(rng) : undefined;
    if (failure && rng.chance(0.7)) rounds.length = 0;
    let stopInTool = false;
    if (status === "stopped") {
      const stopRound = rng.int(1, rounds.length + 1);
      stopInTool = stopRound <= rounds.length && rng.chance(0.6);
      rounds.length = stopInTool ? stopRound : stopRound - 1;
    }
    if (!stopInTool) {
      // Fallback happens before the first token: never after a stream broke, always when every candidate failed.
      const fallback =
        route.candidates.length > 1 && (failure ? failure !== "stream_interrupted" : rng.chance(0.04));
      rounds.push({ calls: [], answer: true, fallback });
    }

    const adapterKind = route.candidates[0]!.adapter;
    const base =
      adapterKind === "offline"
        ? rng.int(120, 700)
        : source === "api"
          ? rng.int(60, 2_500)
          : rng.int(2_100, 2_700);
    let context = base + (rng.chance(0.4) ? 0 : rng.int(150, 7_000));
    const anthropicCache = rng.chance(0.12);
    let clock = 0;
    let cost: string | null = "0";
    let served: { candidate: Candidate; index: number } | undefined;
    const trace: TraceEntry[] = [];
    for (const [r, round] of rounds.entries()) {
      const index = round.fallback && !failure ? 1 : 0;
      const candidate = route.candidates[index]!;
      const speed = SPEED[candidate.model]!;
      const last = r === rounds.length - 1;
      const roundStart = clock;
      let firstFailed: { cause: string; ms: number } | undefined;
      if (round.fallback) {
        const cause = FALLBACK_CAUSES.pick(rng);
        const from = route.candidates[0]!;
        const ms = cause === "timeout" ? 30_000 + rng.int(0, 400) : rng.int(300, 4_000);
        clock += ms;
        firstFailed = { cause, ms };
        audit(clock, "fallback", {
          message: `${from.provider}/${from.model} failed (${cause}); trying the next model.`,
        });
      }
      // The round's model call as the agent loop records it (drawer and schedule turns only, like the recorder).
      const modelCall = (
        outcome: "ok" | "error" | "stopped",
        extra: {
          firstTokenMs?: number | null;
          usage?: unknown;
          cost?: string | null;
          toolCalls?: number;
          error?: unknown;
        },
      ) => {
        if (source === "api") return;
        const tried = firstFailed
          ? [
              {
                ...route.candidates[0]!,
                outcome: "error",
                errorClass: firstFailed.cause,
                durationMs: firstFailed.ms,
              },
            ]
          : [];
        audit(clock, "model_call", {
          round: r + 1,
          lastCall: status === "limit" && last && round.answer,
          outcome,
          servedProvider: outcome === "error" && !served ? null : candidate.provider,
          servedAdapter: outcome === "error" && !served ? null : candidate.adapter,
          servedModel: outcome === "error" && !served ? null : candidate.model,
          fallbackIndex: outcome === "error" && !served ? null : index,
          attempts: [
            ...tried.map(({ provider, model, outcome: o, errorClass, durationMs }) => ({
              provider,
              model,
              outcome: o,
              errorClass,
              durationMs,
            })),
            ...(outcome === "error" && !served
              ? []
              : [
                  {
                    provider: candidate.provider,
                    model: candidate.model,
                    outcome: outcome === "ok" ? "ok" : "error",
                    durationMs: clock - roundStart - (firstFailed?.ms ?? 0),
                  },
                ]),
          ],
          startMs: roundStart,
          durationMs: clock - roundStart,
          firstTokenMs: extra.firstTokenMs ?? null,
          usage: extra.usage ?? null,
          cost: extra.cost ?? null,
          cacheHit: false,
          toolCalls: extra.toolCalls ?? 0,
          ...(extra.error ? { error: extra.error } : {}),
        });
      };
      const ttft = rng.int(speed.ttft[0], speed.ttft[1]);
      if (failure && last) {
        // Every candidate failed (nothing served), or the stream broke after its first token.
        if (failure === "stream_interrupted") {
          clock += ttft;
          if (r === 0) row.first_token_ms = clock;
          served = { candidate, index };
          row.attempts = 1;
          clock += rng.int(200, 6_000);
        } else {
          served = undefined;
          row.attempts = round.fallback ? rng.int(4, 6) : rng.int(2, 3);
          clock += failure === "timeout" ? 30_000 : rng.int(300, 6_000);
        }
        row.error_class = failure;
        row.error_message = failureMessage(failure, route.alias);
        modelCall("error", {
          firstTokenMs: failure === "stream_interrupted" ? ttft : null,
          error: { class: failure, message: row.error_message },
        });
        audit(clock, "error", { class: failure, message: row.error_message });
        break;
      }
      if (status === "stopped" && !stopInTool && last) {
        // Stopped while this round streamed: an aborted round's usage is never reported.
        clock += ttft;
        if (r === 0) row.first_token_ms = clock;
        served = { candidate, index };
        row.attempts = 1;
        clock += rng.int(200, 8_000);
        modelCall("stopped", { firstTokenMs: ttft });
        audit(clock, "stop", { reason: "stopped by the user", cancelledCalls: 0, rounds: r + 1 });
        break;
      }
      // A completed round trip: its usage and cost count.
      const usage = roundUsage(rng, candidate.adapter, context, r, base, anthropicCache);
      usage.outputTokens = round.answer
        ? rng.int(status === "limit" ? 120 : 60, status === "limit" ? 500 : 950)
        : rng.int(18, 140) * round.calls.length;
      row.input_tokens += usage.inputTokens;
      row.cached_input_tokens += usage.cachedInputTokens;
      row.cache_write_tokens += usage.cacheWriteTokens;
      row.output_tokens += usage.outputTokens;
      const roundCost = costOf(
        usage,
        findPrice({}, { name: candidate.provider, type: candidate.adapter }, candidate.model)!,
      );
      cost = addCost(cost, roundCost);
      served = { candidate, index };
      row.attempts = round.fallback ? rng.int(2, 4) : rng.chance(0.04) ? 2 : 1;
      clock += ttft;
      if (r === 0) row.first_token_ms = clock;
      clock += usage.outputTokens * speed.msPerToken;
      context += usage.outputTokens;
      const calls = round.calls.map((tool, i) => {
        const callId = callIdFor(rng, candidate.adapter);
        const args = tool.args(rng, ctx);
        audit(clock + i, "tool_call", { callId, name: tool.name, args, round: r + 1 });
        return { tool, callId, args };
      });
      modelCall("ok", { firstTokenMs: ttft, usage, cost: roundCost, toolCalls: calls.length });
      const toolsStart = clock + calls.length;
      let slowest = 0;
      // Written as each tool finishes (the quickest first), as the loop records them.
      const finished: { at: number; type: string; payload: Record<string, unknown> }[] = [];
      for (const [i, { tool, callId, args }] of calls.entries()) {
        const cancelled = stopInTool && last && i === calls.length - 1;
        const refused = !cancelled && tool.guarded === true && rng.chance(0.15);
        const failed =
          !cancelled && !refused && rng.chance(tool.failRate) ? rng.pick(tool.failures) : undefined;
        // A cancelled call ran until Stop; a refused one never ran; a timed-out one ran for its whole timeout.
        const durationMs = cancelled
          ? rng.int(500, 6_000)
          : refused
            ? rng.int(0, 3)
            : (failed?.ms ?? rng.int(tool.ms[0], tool.ms[1]));
        slowest = Math.max(slowest, durationMs);
        let error: string | undefined;
        let result: unknown;
        if (cancelled) [error, result] = ["cancelled", { error: "cancelled" }];
        else if (refused) {
          const message = `${tool.name} is not allowed for this user`;
          finished.push({
            at: toolsStart + durationMs + i,
            type: "guardrail",
            payload: { code: "tool_not_allowed", tool: tool.name, message },
          });
          [error, result] = ["not allowed", { error: "not allowed" }];
        } else if (failed) [error, result] = [failed.kind, { error: failed.message }];
        else result = tool.result(rng, args, ctx);
        const text = JSON.stringify(result);
        finished.push({
          at: toolsStart + durationMs + i,
          type: "tool_result",
          payload: { callId, name: tool.name, ok: !error, durationMs, startMs: toolsStart, result: text },
        });
        trace.push({ name: tool.name, durationMs, ok: !error, ...(error ? { error } : {}) });
        context += Math.ceil(text.length / 4);
      }
      for (const f of finished.sort((a, b) => a.at - b.at)) audit(f.at, f.type, f.payload);
      clock = toolsStart + slowest + rng.int(2, 30);
      if (stopInTool && last)
        audit(clock, "stop", { reason: "stopped by the user", cancelledCalls: 1, rounds: r + 1 });
      if (round.answer && last && source !== "api" && (status === "success" || status === "limit"))
        audit(clock + 1, "answer", { text: sampleAnswer(trace), status });
    }
    row.rounds = rounds.length;
    row.tool_trace = trace;
    row.cost = cost;
    row.latency_ms = Math.round(clock + rng.int(3, 40));
    if (served) {
      row.served_provider = served.candidate.provider;
      row.served_adapter = served.candidate.adapter;
      row.served_model = served.candidate.model;
      row.fallback_index = served.index;
    }
    return { turn: row, events };
  }
}

/** The answer a sample turn showed: what its tools found, in the shape the demo model answers in. */
function sampleAnswer(trace: TraceEntry[]): string {
  const used = [...new Set(trace.filter((t) => t.ok).map((t) => t.name))];
  const failed = [...new Set(trace.filter((t) => !t.ok).map((t) => t.name))];
  if (!trace.length) return "Here is a short answer, written without tools.";
  const lines = [
    used.length ? `I checked ${used.map((n) => `\`${n}\``).join(", ")}; here is what I found:` : "",
    ...trace.filter((t) => t.ok).map((t) => `- **${t.name}** answered in ${t.durationMs} ms`),
    failed.length ? `\n${failed.map((n) => `\`${n}\``).join(", ")} failed, so part of this is missing.` : "",
  ];
  return lines.filter(Boolean).join("\n");
}

/**
 * One round trip's input tokens by price class. OpenAI caches a repeated prompt prefix of 1,024+ tokens by
 * itself (in 128-token steps); Anthropic only when the caller marks it, so only on some turns.
 */
function roundUsage(
  rng: Rng,
  adapter: Adapter,
  context: number,
  round: number,
  base: number,
  cacheMarked: boolean,
) {
  let cached = 0;
  let written = 0;
  if (adapter === "openai" && context >= 1_024 && rng.chance(round > 0 ? 0.9 : 0.45))
    cached = Math.floor((context * (0.55 + 0.35 * rng.next())) / 128) * 128;
  if (adapter === "anthropic" && cacheMarked) {
    if (round === 0) written = base;
    else cached = base;
  }
  return {
    inputTokens: context - cached - written,
    cachedInputTokens: cached,
    cacheWriteTokens: written,
    outputTokens: 0,
    reasoningTokens: 0,
  };
}

function callIdFor(rng: Rng, adapter: Adapter): string {
  if (adapter === "offline") return `call_offline_${rng.token(12, "0123456789abcdef")}`;
  return adapter === "anthropic" ? `toolu_01${rng.token(22)}` : `call_${rng.token(24)}`;
}
