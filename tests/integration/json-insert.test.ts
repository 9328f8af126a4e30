// The ledger's batch insert (rows as one JSON parameter): every value arrives as drizzle would have written it,
// an unset column keeps its default, and characters PostgreSQL refuses are cleaned, on PGlite and PostgreSQL.
import { eq, sql } from "drizzle-orm";
import { v7 as uuidv7 } from "uuid";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sysAgentAudit, sysAgentTurn, usageDaily } from "@/db/schema";
import { jsonInsert } from "@/lib/governance/json-insert";
import { useSeededAppDatabase } from "../helpers/app-db";
import { testDbKinds } from "../helpers/db";

describe.each(testDbKinds)("jsonInsert on %s", (kind) => {
  let app: Awaited<ReturnType<typeof useSeededAppDatabase>>;
  let tenantId: string;
  let userId: string;
  beforeAll(async () => {
    app = await useSeededAppDatabase(kind);
    tenantId = await app.tenantId("acme");
    userId = await app.userId("admin@acme.test");
  });
  afterAll(() => app.close());

  const run = async (statements: ReturnType<typeof jsonInsert>) => {
    for (const statement of statements) await app.db.execute(statement);
  };

  it("writes dates, numerics, jsonb, text[] and nulls as they are, and leaves unset columns to their defaults", async () => {
    const id = uuidv7();
    const startedAt = new Date("2026-11-30T12:34:56.789Z");
    await run(
      jsonInsert(sysAgentTurn, [
        {
          id,
          tenantId,
          userId,
          conversationId: null,
          source: "api",
          apiKeyId: null,
          requestedModel: "gpt",
          startedAt,
          status: "success",
          cost: "0.0000024000",
          toolTrace: [{ name: "lookup", durationMs: 3, ok: false, error: 'it\'s "quoted"' }],
          tags: ["team:billing", "a,b", 'q"uote'],
          requestMetadata: { team: "billing" },
          inputTokens: 12,
          endUser: null,
        },
      ]),
    );
    const [row] = await app.db.select().from(sysAgentTurn).where(eq(sysAgentTurn.id, id));
    expect(row).toMatchObject({
      startedAt,
      cost: "0.0000024000",
      toolTrace: [{ name: "lookup", durationMs: 3, ok: false, error: 'it\'s "quoted"' }],
      tags: ["team:billing", "a,b", 'q"uote'],
      requestMetadata: { team: "billing" },
      inputTokens: 12,
      // Not set: the columns' defaults, not NULL.
      outputTokens: 0,
      rounds: 0,
      cacheHits: 0,
      endUser: null,
    });
  });

  it("writes rows that set different columns in separate statements, each keeping its defaults", async () => {
    const turnId = uuidv7();
    const given = new Date("2026-11-01T00:00:00.000Z");
    const base = {
      tenantId,
      userId,
      turnId,
      conversationId: null,
      type: "request" as const,
      payload: { a: 1 },
    };
    const statements = jsonInsert(sysAgentAudit, [
      { id: uuidv7(), ...base, seq: 1 },
      { id: uuidv7(), ...base, seq: 2, createdAt: given },
    ]);
    expect(statements).toHaveLength(2);
    await run(statements);
    const rows = await app.db
      .select()
      .from(sysAgentAudit)
      .where(eq(sysAgentAudit.turnId, turnId))
      .orderBy(sysAgentAudit.seq);
    expect(rows[1]!.createdAt).toEqual(given);
    expect(rows[0]!.createdAt.getTime()).toBeGreaterThan(given.getTime());
  });

  it("cleans a NUL and a lone surrogate anywhere in the batch, keys and nested values included", async () => {
    const turnId = uuidv7();
    await run(
      jsonInsert(sysAgentAudit, [
        {
          id: uuidv7(),
          tenantId,
          userId,
          turnId,
          conversationId: null,
          seq: 1,
          type: "request",
          payload: { "k\u0000": ["before\u0000after", { deep: "lone \ud800" }], literal: "\\u0000 stays" },
        },
      ]),
    );
    const [row] = await app.db.select().from(sysAgentAudit).where(eq(sysAgentAudit.turnId, turnId));
    expect(row!.payload).toEqual({
      "k\ufffd": ["before\ufffdafter", { deep: "lone \ufffd" }],
      literal: "\\u0000 stays",
    });
  });

  it("adds to a rollup line on conflict", async () => {
    const line = {
      tenantId,
      day: "2026-11-29",
      userId,
      source: "api",
      servedAdapter: "openai",
      servedModel: "json-insert-test",
      requests: 2,
      failures: 1,
      inputTokens: 10,
      cachedInputTokens: 0,
      cacheWriteTokens: 0,
      outputTokens: 5,
      reasoningTokens: 0,
      cost: "0.5",
      latencyMsTotal: 40,
    };
    const upsert = sql.raw(
      `on conflict ("tenant_id", "day", "user_id", "source", "served_adapter", "served_model") do update set "requests" = "usage_daily"."requests" + excluded."requests", "cost" = "usage_daily"."cost" + excluded."cost"`,
    );
    await run(jsonInsert(usageDaily, [line], upsert));
    await run(jsonInsert(usageDaily, [line], upsert));
    const [row] = await app.db
      .select()
      .from(usageDaily)
      .where(eq(usageDaily.servedModel, "json-insert-test"));
    expect(row).toMatchObject({ requests: 4, cost: "1.0000000000", inputTokens: 10 });
  });
});
