import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import Big from "big.js";
import { eq } from "drizzle-orm";
import Redis from "ioredis";
import OpenAI from "openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { sysAgentAudit, sysAgentTurn } from "@/db/schema";
import { createApiKey } from "@/features/keys/server/keys";
import { readGovernanceSettings, saveLimits, saveTenantSettings } from "@/features/limits/server/settings";
import { createV1Core } from "@/features/v1/server/handler";
import { parseGatewayConfig } from "@/lib/gateway/config";
import { Gateway } from "@/lib/gateway/gateway";
import { BatchedGovernanceRecorder } from "@/lib/governance/batched-recorder";
import { type BudgetCrossing, onBudgetThreshold } from "@/lib/pipeline/budget-alerts";
import { PostgresResponseCache } from "@/lib/pipeline/cache-store";
import { type CounterStore, PostgresCounters, RedisCounters } from "@/lib/pipeline/counters";
import { estimateCost } from "@/lib/pipeline/estimate";
import { Pipeline } from "@/lib/pipeline/pipeline";
import { invalidatePolicy } from "@/lib/pipeline/policy";
import { serveApi } from "@/server/serve";
import type { FakeProvider } from "../fakes/http";
import { startFakeOpenAI } from "../fakes/openai";
import { useSeededAppDatabase } from "../helpers/app-db";
import { testDbKinds } from "../helpers/db";

const NO_LIMITS = {
  requestsPerMinute: null,
  tokensPerMinute: null,
  dailySoftUsd: null,
  dailyHardUsd: null,
  monthlySoftUsd: null,
  monthlyHardUsd: null,
};
const redisUrl = process.env.TEST_REDIS_URL ?? "";
const setups = [
  ...testDbKinds.map((kind) => ({ kind, redis: false, name: `${kind}` })),
  ...(redisUrl ? [{ kind: "pglite" as const, redis: true, name: "pglite with counters in redis" }] : []),
];

// About 600 characters of prose: a character count (3 a token) takes it for ~210 tokens.
const PROMPT = "Summarise the quarterly report for the board, in detail. ".repeat(11);

describe.each(setups)(
  "a hard budget against a provider that bills more than expected, on $name",
  ({ kind, redis }) => {
    let app: Awaited<ReturnType<typeof useSeededAppDatabase>>;
    let upstream: FakeProvider;
    let server: Server;
    let baseURL: string;
    let gateway: Gateway;
    let counters: CounterStore;
    let redisClient: Redis | undefined;
    let recorder: BatchedGovernanceRecorder;
    let acme: string;
    let admin: string;

    beforeAll(async () => {
      app = await useSeededAppDatabase(kind);
      upstream = await startFakeOpenAI();
      gateway = new Gateway(
        parseGatewayConfig(
          {
            providers: { up: { type: "openai", baseUrl: upstream.url } },
            models: { "team-gpt": { candidates: [{ provider: "up", model: "gpt-4o-mini" }] } },
            retry: { maxRetries: 0 },
          },
          "test",
          {},
        ),
      );
      const db = async () => app.db;
      recorder = new BatchedGovernanceRecorder(db);
      counters = new PostgresCounters(db);
      if (redis) {
        redisClient = new Redis(redisUrl);
        counters = new RedisCounters(redisClient, `tollgate-overrun-test-${process.pid}-${Date.now()}:`);
      }
      const cache = new PostgresResponseCache(db);
      const pinned = Math.floor(Date.now() / 60_000) * 60_000 + 30_000;
      const pipeline = new Pipeline({
        db,
        gateway: () => gateway,
        counters: () => counters,
        cache: () => cache,
        now: () => pinned,
      });
      server = createServer(serveApi(createV1Core({ db, gateway: () => gateway, pipeline, recorder })));
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
      acme = await app.tenantId("acme");
      admin = await app.userId("admin@acme.test");
    });
    afterAll(async () => {
      await new Promise((resolve) => server.close(resolve));
      await upstream.close();
      await app.close();
      await redisClient?.quit();
    });
    beforeEach(() => upstream.reset());

    const keyWithHardBudget = async (name: string, dailyHardUsd: string) => {
      const created = await createApiKey(app.db, { tenantId: acme, name, createdBy: admin });
      await saveLimits(
        app.db,
        counters,
        acme,
        { scope: "key", subjectId: created.key.id, ...NO_LIMITS, dailyHardUsd },
        admin,
      );
      return created;
    };
    const client = (apiKey: string) => new OpenAI({ apiKey, baseURL, maxRetries: 0 });
    const settledSpend = async (keyId: string) => {
      await recorder.flush();
      const rows = await app.db.select().from(sysAgentTurn).where(eq(sysAgentTurn.apiKeyId, keyId));
      return rows.reduce((sum, r) => sum.plus(r.cost ?? "0"), new Big(0));
    };
    const auditCodes = async (turnId: string) => {
      await recorder.flush();
      const events = await app.db
        .select()
        .from(sysAgentAudit)
        .where(eq(sysAgentAudit.turnId, turnId))
        .orderBy(sysAgentAudit.seq);
      return events.filter((e) => e.type === "guardrail").map((e) => e.payload.code);
    };

    it("concurrent calls without max_tokens: the tenant's ceiling is sent upstream and the spend stays within one call of the limit", async () => {
      const limit = "0.01";
      const { secret, key } = await keyWithHardBudget("long answers", limit);
      // Each answer runs long (3,000 tokens, where a 1,024-token reservation once assumed less) and the prompt
      // costs more tokens than a character count says; held 300 ms so every call is in flight at once.
      upstream.setDefault({
        kind: "text",
        text: "a long report",
        usage: { input: 300, output: 3_000 },
        delayMs: 300,
      });
      const results = await Promise.allSettled(
        Array.from({ length: 30 }, () =>
          client(secret)
            .chat.completions.create({ model: "team-gpt", messages: [{ role: "user", content: PROMPT }] })
            .withResponse(),
        ),
      );
      const through = results.filter((r) => r.status === "fulfilled");
      const refused = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
      expect(refused.length).toBeGreaterThan(0);
      for (const r of refused) expect(r.reason).toMatchObject({ status: 429, code: "budget_exceeded" });
      // What was settled stays within the limit plus one call's bounded worst case (it was +177 % when the
      // reservation assumed 1,024 output tokens and 3 characters a token).
      const oneCall = estimateCost(
        gateway,
        { model: "team-gpt", messages: [{ role: "user", content: PROMPT }] },
        4096,
      );
      const spent = await settledSpend(key.id);
      expect(spent.gt(0)).toBe(true);
      expect(`${spent.div(limit).minus(1).times(100).toFixed(0)} % over`).toMatch(/^-\d+ % over$|^0 % over$/);
      expect(spent.lte(new Big(limit).plus(oneCall))).toBe(true);
      // The bound is real: every call that went upstream carried the ceiling as its max.
      expect(upstream.requests.length).toBe(through.length);
      for (const req of upstream.requests) expect(req.body.max_completion_tokens).toBe(4096);
      // The caller is told its request was changed: a header, and an audit event.
      const first = through[0]!.value;
      expect(first.response.headers.get("x-tollgate-warning")).toMatch(/output ceiling of 4096 tokens/);
      expect(await auditCodes(first.response.headers.get("x-request-id")!)).toEqual(["max_tokens_applied"]);
    });

    it("a tenant's own ceiling is what is sent and reserved", async () => {
      await saveTenantSettings(
        app.db,
        acme,
        { retentionDays: 90, cacheAliases: [], cacheTtlSeconds: 3600, maxOutputTokensDefault: 512 },
        ["team-gpt"],
      );
      invalidatePolicy(acme);
      try {
        const { secret } = await keyWithHardBudget("ceiling", "1");
        await client(secret).chat.completions.create({
          model: "team-gpt",
          messages: [{ role: "user", content: "hi" }],
        });
        expect(upstream.requests[0]!.body.max_completion_tokens).toBe(512);
        // A caller's own max_tokens is left as it is.
        await client(secret).chat.completions.create({
          model: "team-gpt",
          messages: [{ role: "user", content: "hi" }],
          max_tokens: 77,
        });
        expect(upstream.requests[1]!.body.max_tokens).toBe(77);
        expect(upstream.requests[1]!.body.max_completion_tokens).toBeUndefined();
        expect((await readGovernanceSettings(app.db, counters, acme)).maxOutputTokensDefault).toBe(512);
      } finally {
        await saveTenantSettings(
          app.db,
          acme,
          { retentionDays: 90, cacheAliases: [], cacheTtlSeconds: 3600, maxOutputTokensDefault: 4096 },
          ["team-gpt"],
        );
        invalidatePolicy(acme);
      }
    });

    it("a provider that bills past the reservation: the overrun is recorded, and the next call is refused", async () => {
      const { secret, key } = await keyWithHardBudget("overbilled", "0.002");
      // The provider ignores max_tokens and bills 50,000 output tokens (about $0.03).
      upstream.enqueue({ kind: "text", text: "far too long", usage: { input: 10, output: 50_000 } });
      const { response } = await client(secret)
        .chat.completions.create({
          model: "team-gpt",
          messages: [{ role: "user", content: "hi" }],
          max_tokens: 100,
        })
        .withResponse();
      expect(response.headers.get("x-tollgate-warning")).toMatch(/more than the .* reserved for it/);
      expect(await auditCodes(response.headers.get("x-request-id")!)).toEqual(["budget_overrun"]);
      expect((await settledSpend(key.id)).gt("0.002")).toBe(true);

      await expect(
        client(secret).chat.completions.create({
          model: "team-gpt",
          messages: [{ role: "user", content: "hi" }],
          max_tokens: 1,
        }),
      ).rejects.toMatchObject({ status: 429, code: "budget_exceeded" });
      expect(upstream.requests).toHaveLength(1);
    });

    it("a streamed call that is billed past its reservation has the overrun in its audit trail", async () => {
      const { secret } = await keyWithHardBudget("overbilled stream", "0.002");
      upstream.enqueue({ kind: "text", text: "far too long", usage: { input: 10, output: 50_000 } });
      const { data: stream, response } = await client(secret)
        .chat.completions.create({
          model: "team-gpt",
          messages: [{ role: "user", content: "hi" }],
          max_tokens: 100,
          stream: true,
          stream_options: { include_usage: true },
        })
        .withResponse();
      for await (const _ of stream) {
      }
      const id = response.headers.get("x-request-id")!;
      await expect.poll(async () => auditCodes(id)).toEqual(["budget_overrun"]);
    });

    it("a reservation past 50 % of a hard budget is told to the alerts' listener, which cannot fail the call", async () => {
      upstream.setDefault({ kind: "text", text: "ok", usage: { input: 10, output: 10 } });
      // One call's reservation (the 4,096-token ceiling) is about $0.0025: past half of $0.004.
      const { secret, key } = await keyWithHardBudget("alerting", "0.004");
      const heard: BudgetCrossing[] = [];
      const stop = onBudgetThreshold((crossing) => {
        heard.push(crossing);
        throw new Error("a listener that fails");
      });
      try {
        const answer = await client(secret).chat.completions.create({
          model: "team-gpt",
          messages: [{ role: "user", content: "hi" }],
        });
        expect(answer.choices[0]!.message.content).toBe("ok");
        await expect.poll(() => heard.length).toBe(1);
        expect(heard[0]).toMatchObject({ tenantId: acme, mark: 50 });
        expect(heard[0]!.key).toContain(key.id);
      } finally {
        stop();
      }
    });
  },
);
