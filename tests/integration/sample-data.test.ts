import Big from "big.js";
import { sql } from "drizzle-orm";
import { v7 as uuidv7 } from "uuid";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/db";
import { deleteSampleHistory, generateSampleHistory, rowsOf } from "@/features/demo/server/sample-data";
import { costOf, findPrice } from "@/lib/gateway/pricing";
import { GovernanceRecorder } from "@/lib/governance/recorder";
import { useSeededAppDatabase } from "../helpers/app-db";
import { testDbKinds } from "../helpers/db";

const NOW = new Date("2026-03-15T12:00:00Z");
const TURNS = 1_200;
const DAY = 24 * 3600 * 1000;

describe.each(testDbKinds)("the sample history on %s", (kind) => {
  let app: Awaited<ReturnType<typeof useSeededAppDatabase>>;
  let db: Database;
  let acme: string;
  let member: string;
  let generated: Awaited<ReturnType<typeof generateSampleHistory>>;
  const realTurnId = uuidv7();
  const realDay = new Date(NOW.getTime() - 2 * DAY);

  async function rows<T>(query: ReturnType<typeof sql>): Promise<T[]> {
    return rowsOf<T>(await db.execute(query));
  }
  async function one<T>(query: ReturnType<typeof sql>): Promise<T> {
    return (await rows<T>(query))[0]!;
  }
  const sampleTurns = sql`select * from sys_agent_turn where conversation_id is null`;

  beforeAll(async () => {
    app = await useSeededAppDatabase(kind);
    db = app.db;
    acme = await app.tenantId("acme");
    member = await app.userId("member@acme.test");
    // One real turn, recorded the way the app records it, on a key the sample rollups will also add to.
    const recorder = new GovernanceRecorder(async () => db);
    await recorder.start({
      turnId: realTurnId,
      tenantId: acme,
      userId: member,
      conversationId: uuidv7(),
      source: "drawer",
      requestedModel: "default",
      message: "a real question",
      toolsOffered: [],
      startedAt: realDay,
    });
    await recorder.end({
      turnId: realTurnId,
      conversationId: "unused",
      status: "success",
      requestedModel: "default",
      servedProvider: "openai",
      servedAdapter: "openai",
      servedModel: "gpt-4o-mini",
      fallbackIndex: 0,
      attempts: [{ provider: "openai", model: "gpt-4o-mini", outcome: "ok", durationMs: 300 }],
      usage: {
        inputTokens: 1000,
        cachedInputTokens: 0,
        cacheWriteTokens: 0,
        outputTokens: 50,
        reasoningTokens: 0,
      },
      cost: "0.00018",
      rounds: 1,
      toolTrace: [],
      timeToFirstTokenMs: 300,
      latencyMs: 900,
    });
    generated = await generateSampleHistory(db, kind, { turns: TURNS, seed: 42, now: NOW });
  });
  afterAll(async () => {
    await app.close();
  });

  it("writes the asked number of turns over the days, with every status, source and model", async () => {
    expect(generated.turns).toBe(TURNS);
    const stats = await one<{ n: number; days: number; first: string; last: string }>(
      sql`select count(*)::int as n, count(distinct (started_at at time zone 'UTC')::date)::int as days,
        min(started_at)::text as first, max(started_at)::text as last from (${sampleTurns}) t`,
    );
    expect(stats.n).toBe(TURNS);
    expect(stats.days).toBeGreaterThanOrEqual(30);
    expect(new Date(stats.first).getTime()).toBeGreaterThanOrEqual(NOW.getTime() - 30 * DAY - 10 * 60_000);
    expect(new Date(stats.last).getTime()).toBeLessThan(NOW.getTime());
    const distinct = async (column: string) =>
      (
        await rows<{ v: string }>(
          sql`select distinct ${sql.raw(column)}::text as v from (${sampleTurns}) t where ${sql.raw(column)} is not null`,
        )
      )
        .map((r) => r.v)
        .sort();
    expect(await distinct("status")).toEqual(["failed", "interrupted", "limit", "stopped", "success"]);
    expect(await distinct("source")).toEqual(["api", "drawer", "schedule"]);
    expect(await distinct("served_model")).toEqual([
      "claude-haiku-4-5",
      "claude-sonnet-4-5",
      "gpt-4.1",
      "gpt-4o-mini",
      "offline-demo",
    ]);
    const mix = await one<{ success: number; fallback: number; cached: number; tools: number }>(
      sql`select avg((status = 'success')::int)::float as success,
        count(*) filter (where fallback_index = 1 and attempts >= 2)::int as fallback,
        count(*) filter (where cached_input_tokens > 0)::int as cached,
        count(*) filter (where jsonb_array_length(tool_trace) between 1 and 5)::int as tools
        from (${sampleTurns}) t`,
    );
    expect(mix.success).toBeGreaterThan(0.8);
    expect(mix.success).toBeLessThan(0.92);
    expect(mix.fallback).toBeGreaterThan(0);
    expect(mix.cached).toBeGreaterThan(0);
    expect(mix.tools).toBeGreaterThan(TURNS / 2);
  });

  it("marks every sample row: no conversation, and sample: true in every audit payload", async () => {
    const audit = await one<{ n: number; unmarked: number; requests: number }>(
      sql`select count(*)::int as n, count(*) filter (where not payload @> '{"sample": true}')::int as unmarked,
        count(*) filter (where seq = 1 and type = 'request')::int as requests
        from sys_agent_audit where turn_id in (select id from (${sampleTurns}) t)`,
    );
    expect(audit).toEqual({ n: generated.auditEvents, unmarked: 0, requests: TURNS });
    // Request, ~2.3 tool calls and results, a model call per round and the answer.
    expect(generated.auditEvents / TURNS).toBeGreaterThan(6);
    expect(generated.auditEvents / TURNS).toBeLessThan(9);
    const real = await one<{ n: number }>(
      sql`select count(*)::int as n from sys_agent_audit where turn_id = ${realTurnId} and payload ? 'sample'`,
    );
    expect(real.n).toBe(0);
  });

  it("numbers each turn's audit events 1..n without gaps, consistent with its trace and status", async () => {
    const gaps = await one<{ n: number }>(
      sql`select count(*)::int as n from (select turn_id, count(*) as n, min(seq) as lo, max(seq) as hi,
        count(distinct seq) as d from sys_agent_audit group by turn_id) s where lo <> 1 or hi <> n or d <> n`,
    );
    expect(gaps.n).toBe(0);
    const mismatched = await one<{ n: number }>(
      sql`select count(*)::int as n from (${sampleTurns}) t, lateral (select
          count(*) filter (where type = 'tool_call') as calls, count(*) filter (where type = 'tool_result') as results,
          count(*) filter (where type = 'error') as errors, count(*) filter (where type = 'stop') as stops,
          count(*) filter (where type = 'fallback') as fallbacks,
          count(*) filter (where type = 'model_call') as model_calls, count(*) filter (where type = 'answer') as answers
        from sys_agent_audit a where a.turn_id = t.id) e
        where e.calls <> jsonb_array_length(t.tool_trace) or e.results <> e.calls
          -- A model call per round and the answer of a finished turn, as the loop records them (never for /v1).
          or e.model_calls <> (case when t.source = 'api' or t.status = 'interrupted' then 0 else t.rounds end)
          or e.answers <> (case when t.source <> 'api' and t.status in ('success', 'limit') then 1 else 0 end)
          or (e.errors > 0) <> (t.status = 'failed') or (e.stops > 0) <> (t.status = 'stopped')
          or (t.fallback_index > 0 and e.fallbacks = 0)`,
    );
    expect(mismatched.n).toBe(0);
  });

  it("uses UUIDv7 ids that carry each turn's start time", async () => {
    const turns = await rows<{ id: string; ms: string }>(
      sql`select id::text as id, (extract(epoch from started_at) * 1000)::bigint::text as ms from (${sampleTurns}) t`,
    );
    for (const t of turns) {
      expect(t.id[14]).toBe("7");
      expect(Number.parseInt(t.id.replace(/-/g, "").slice(0, 12), 16)).toBe(Number(t.ms));
    }
  });

  it("prices each turn exactly from the price catalog", async () => {
    const turns = await rows<{
      provider: string;
      adapter: "openai" | "anthropic" | "offline";
      model: string;
      input: number;
      cached: number;
      written: number;
      output: number;
      cost: string;
    }>(
      sql`select served_provider as provider, served_adapter as adapter, served_model as model, input_tokens as input,
        cached_input_tokens as cached, cache_write_tokens as written, output_tokens as output, cost::text as cost
        from (${sampleTurns}) t where status = 'success' and fallback_index = 0`,
    );
    expect(turns.length).toBeGreaterThan(TURNS / 2);
    for (const t of turns) {
      const usage = {
        inputTokens: t.input,
        cachedInputTokens: t.cached,
        cacheWriteTokens: t.written,
        outputTokens: t.output,
        reasoningTokens: 0,
      };
      expect(
        new Big(costOf(usage, findPrice({}, { name: t.provider, type: t.adapter }, t.model)!)).eq(t.cost),
      ).toBe(true);
    }
  });

  it("rolls up exactly what the ledger holds, added to the real usage", async () => {
    const mismatches = await one<{ n: number }>(
      sql`with l as (select tenant_id, (started_at at time zone 'UTC')::date as day, user_id, source,
          coalesce(served_adapter, 'none') as served_adapter, coalesce(served_model, requested_model) as served_model,
          count(*) as requests, count(*) filter (where status = 'failed') as failures,
          sum(input_tokens) as input_tokens, sum(cached_input_tokens) as cached, sum(output_tokens) as output_tokens,
          coalesce(sum(cost), 0) as cost, coalesce(sum(latency_ms), 0) as latency
          from sys_agent_turn group by 1, 2, 3, 4, 5, 6)
        select count(*)::int as n from l full join usage_daily u
          using (tenant_id, day, user_id, source, served_adapter, served_model)
        where l.requests is distinct from u.requests or l.failures is distinct from u.failures
          or l.input_tokens is distinct from u.input_tokens or l.cached is distinct from u.cached_input_tokens
          or l.output_tokens is distinct from u.output_tokens or l.cost is distinct from u.cost
          or l.latency is distinct from u.latency_ms_total`,
    );
    expect(mismatches.n).toBe(0);
    const byTenant = await rows<{ tenant: string; ledger: string; rollup: string; same: boolean }>(
      sql`select l.tenant_id as tenant, l.cost::text as ledger, u.cost::text as rollup,
          (l.requests, l.input_tokens, l.output_tokens, l.cost) = (u.requests, u.input_tokens, u.output_tokens, u.cost) as same
        from (select tenant_id, count(*) as requests, sum(input_tokens) as input_tokens, sum(output_tokens) as output_tokens,
                sum(coalesce(cost, 0)) as cost from sys_agent_turn group by 1) l
        join (select tenant_id, sum(requests) as requests, sum(input_tokens) as input_tokens,
                sum(output_tokens) as output_tokens, sum(cost) as cost from usage_daily group by 1) u using (tenant_id)`,
    );
    expect(byTenant).toHaveLength(2);
    for (const t of byTenant) expect(t.same).toBe(true);
    // The real turn's rollup row was shared with sample turns, and added to rather than replaced.
    const shared = await one<{ requests: number }>(
      sql`select requests from usage_daily where tenant_id = ${acme} and user_id = ${member}
        and day = ${realDay.toISOString().slice(0, 10)}::date and source = 'drawer' and served_model = 'gpt-4o-mini'`,
    );
    expect(shared.requests).toBeGreaterThan(1);
  });

  it("generates the same history for the same seed, and another for another seed", async () => {
    const fingerprint = async () =>
      one<{ turns: string; audit: string }>(
        sql`select (select md5(string_agg(concat_ws('|', id, tenant_id, user_id, source, status, started_at,
            served_model, input_tokens, cached_input_tokens, output_tokens, cost, tool_trace::text, latency_ms,
            error_message), ',' order by id)) from (${sampleTurns}) t) as turns,
          (select md5(string_agg(concat_ws('|', id, turn_id, seq, type, payload::text, created_at), ',' order by id))
            from sys_agent_audit where conversation_id is null and payload ? 'sample') as audit`,
      );
    const first = await fingerprint();
    await deleteSampleHistory(db);
    await generateSampleHistory(db, kind, { turns: TURNS, seed: 43, now: NOW });
    const other = await fingerprint();
    await deleteSampleHistory(db);
    await generateSampleHistory(db, kind, { turns: TURNS, seed: 42, now: NOW });
    const again = await fingerprint();
    expect(again).toEqual(first);
    expect(other.turns).not.toBe(first.turns);
    expect(other.audit).not.toBe(first.audit);
  });

  it("resets: removes every sample row and leaves the real turn, its events and its usage exactly", async () => {
    const removed = await deleteSampleHistory(db);
    expect(removed.turns).toBe(TURNS);
    expect(removed.auditEvents).toBe(generated.auditEvents);
    const left = await one<{ turns: number; audit: number; usage: number }>(
      sql`select (select count(*)::int from sys_agent_turn) as turns, (select count(*)::int from sys_agent_audit) as audit,
        (select count(*)::int from usage_daily) as usage`,
    );
    expect(left).toEqual({ turns: 1, audit: 1, usage: 1 });
    const usage = await one<{
      requests: number;
      input: number;
      output: number;
      cost: string;
      latency: number;
    }>(
      sql`select requests, input_tokens::int as input, output_tokens::int as output, cost::text as cost,
        latency_ms_total::int as latency from usage_daily where tenant_id = ${acme} and user_id = ${member}`,
    );
    expect(usage).toEqual({ requests: 1, input: 1000, output: 50, cost: "0.0001800000", latency: 900 });
    const turn = await one<{ id: string; status: string }>(
      sql`select id::text as id, status from sys_agent_turn`,
    );
    expect(turn).toEqual({ id: realTurnId, status: "success" });
    expect((await deleteSampleHistory(db)).turns).toBe(0);
  });

  it("writes the turns and their rollups without audit events when asked (auditEvents: false)", async () => {
    const result = await generateSampleHistory(db, kind, {
      turns: 300,
      seed: 42,
      now: NOW,
      auditEvents: false,
    });
    expect(result.turns).toBe(300);
    expect(result.auditEvents).toBe(0);
    const counts = await one<{ turns: number; audit: number; requests: number; closed: number }>(
      sql`select (select count(*)::int from sys_agent_turn where conversation_id is null) as turns,
        (select count(*)::int from sys_agent_audit) as audit, (select sum(requests)::int from usage_daily) as requests,
        (select count(*)::int from sys_agent_turn where status <> 'running' and user_id is not null) as closed`,
    );
    // The real turn's one event stays the only one; the rollups hold every closed turn, the real one included.
    expect(counts).toMatchObject({ turns: 300, audit: 1 });
    expect(counts.requests).toBe(counts.closed);
  });
});
