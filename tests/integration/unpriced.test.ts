import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { and, eq } from "drizzle-orm";
import OpenAI from "openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { adminChange, sysAgentAudit, sysAgentTurn, usageDaily } from "@/db/schema";
import { createApiKey } from "@/features/keys/server/keys";
import { saveAssumedPrice, unpricedModels } from "@/features/limits/server/assumed-prices";
import { saveLimits } from "@/features/limits/server/settings";
import { createV1Core } from "@/features/v1/server/handler";
import { parseGatewayConfig } from "@/lib/gateway/config";
import { Gateway } from "@/lib/gateway/gateway";
import { BatchedGovernanceRecorder } from "@/lib/governance/batched-recorder";
import { reconcileRollups } from "@/lib/governance/reconcile";
import { PostgresResponseCache } from "@/lib/pipeline/cache-store";
import { PostgresCounters } from "@/lib/pipeline/counters";
import { Pipeline } from "@/lib/pipeline/pipeline";
import type { PipelineEvent } from "@/lib/pipeline/types";
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
// A model no price catalog knows: its calls have tokens but no price.
const MYSTERY = "acme-mystery-model-1";

describe.each(testDbKinds)("a model without a price, on %s", (kind) => {
  let app: Awaited<ReturnType<typeof useSeededAppDatabase>>;
  let upstream: FakeProvider;
  let server: Server;
  let baseURL: string;
  let gateway: Gateway;
  let recorder: BatchedGovernanceRecorder;
  let pipeline: Pipeline;
  let counters: PostgresCounters;
  let acme: string;
  let admin: string;
  let adminEmail: string;

  beforeAll(async () => {
    app = await useSeededAppDatabase(kind);
    upstream = await startFakeOpenAI();
    gateway = new Gateway(
      parseGatewayConfig(
        {
          providers: { up: { type: "openai", baseUrl: upstream.url } },
          models: {
            mystery: { candidates: [{ provider: "up", model: MYSTERY }] },
            // Priced first, then the unpriced fallback: a call under a hard budget could still be served by it.
            "priced-then-mystery": {
              candidates: [
                { provider: "up", model: "gpt-4o-mini" },
                { provider: "up", model: MYSTERY },
              ],
            },
            "team-gpt": { candidates: [{ provider: "up", model: "gpt-4o-mini" }] },
          },
          retry: { maxRetries: 0 },
        },
        "test",
        {},
      ),
    );
    const db = async () => app.db;
    recorder = new BatchedGovernanceRecorder(db);
    counters = new PostgresCounters(db);
    const cache = new PostgresResponseCache(db);
    pipeline = new Pipeline({ db, gateway: () => gateway, counters: () => counters, cache: () => cache });
    server = createServer(serveApi(createV1Core({ db, gateway: () => gateway, pipeline, recorder })));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
    acme = await app.tenantId("acme");
    admin = await app.userId("admin@acme.test");
    adminEmail = "admin@acme.test";
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await upstream.close();
    await app.close();
  });
  beforeEach(() => {
    upstream.reset();
    answerAs(MYSTERY);
  });
  // The fake provider names the model that served (as the real API does); pricing goes by that name.
  const answerAs = (model: string) =>
    upstream.setDefault({ kind: "text", text: "an answer", usage: { input: 1_000, output: 500 }, model });

  const client = (apiKey: string) => new OpenAI({ apiKey, baseURL, maxRetries: 0 });
  const newKey = async (name: string, dailyHardUsd: string | null = null) => {
    const created = await createApiKey(app.db, { tenantId: acme, name, createdBy: admin });
    if (dailyHardUsd)
      await saveLimits(
        app.db,
        counters,
        acme,
        { scope: "key", subjectId: created.key.id, ...NO_LIMITS, dailyHardUsd },
        admin,
      );
    return created;
  };
  const rowOf = async (turnId: string) => {
    await recorder.flush();
    const [row] = await app.db.select().from(sysAgentTurn).where(eq(sysAgentTurn.id, turnId));
    return row!;
  };
  const actor = () => ({ id: admin, email: adminEmail, requestId: "test" });

  it("lists the gateway's candidates no price covers, with the aliases they serve", () => {
    expect(unpricedModels(gateway.config)).toEqual([
      { provider: "up", model: MYSTERY, aliases: ["mystery", "priced-then-mystery"] },
    ]);
  });

  it("without a budget, is served and recorded with its tokens as unpriced: a null cost, never 0", async () => {
    const { secret } = await newKey("no budget");
    const answer = await client(secret)
      .chat.completions.create({ model: "mystery", messages: [{ role: "user", content: "hi" }] })
      .withResponse();
    const row = await rowOf(answer.response.headers.get("x-request-id")!);
    expect(row).toMatchObject({
      status: "success",
      servedModel: MYSTERY,
      inputTokens: 1_000,
      outputTokens: 500,
      cost: null,
      costStatus: "unpriced",
    });
    // The daily rollup counts it as a call without a price (the dashboard's card), and agrees with the ledger.
    const [line] = await app.db
      .select()
      .from(usageDaily)
      .where(and(eq(usageDaily.tenantId, acme), eq(usageDaily.servedModel, MYSTERY)));
    expect(line).toMatchObject({ requests: 1, unpricedRequests: 1, inputTokens: 1_000 });
    expect(Number(line!.cost)).toBe(0);
    const day = row.startedAt.toISOString().slice(0, 10);
    expect(
      (await reconcileRollups(app.db, { from: day, to: day, tenantId: acme, repair: false })).lines,
    ).toEqual([]);
    // A priced call beside it is priced.
    answerAs("gpt-4o-mini-2024-07-18");
    const priced = await client(secret)
      .chat.completions.create({ model: "team-gpt", messages: [{ role: "user", content: "hi" }] })
      .withResponse();
    const pricedRow = await rowOf(priced.response.headers.get("x-request-id")!);
    expect(pricedRow.costStatus).toBe("priced");
    expect(Number(pricedRow.cost)).toBeGreaterThan(0);
  });

  it("under a hard budget, is refused before any provider is asked (429 budget_unpriced_model naming it), and priced aliases still pass", async () => {
    const { secret, key } = await newKey("hard budget", "5");
    for (const model of ["mystery", "priced-then-mystery"]) {
      const refused = await client(secret)
        .chat.completions.create({ model, messages: [{ role: "user", content: "hi" }] })
        .catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(OpenAI.APIError);
      expect(refused).toMatchObject({ status: 429, code: "budget_unpriced_model" });
      expect((refused as Error).message).toContain(`up/${MYSTERY}`);
      expect((refused as InstanceType<typeof OpenAI.APIError>).headers?.get("x-should-retry")).toBe("false");
    }
    expect(upstream.requests).toHaveLength(0);
    await client(secret).chat.completions.create({
      model: "team-gpt",
      messages: [{ role: "user", content: "hi" }],
    });
    expect(upstream.requests).toHaveLength(1);
    // Each refusal is a ledger row (failed, with the refusal's class) with its guardrail event in the audit.
    await recorder.flush();
    const rows = await app.db.select().from(sysAgentTurn).where(eq(sysAgentTurn.apiKeyId, key.id));
    const refusedRows = rows.filter((r) => r.errorClass === "budget_unpriced_model");
    expect(refusedRows).toHaveLength(2);
    for (const r of refusedRows) {
      expect(r).toMatchObject({ status: "failed", costStatus: "priced" });
      expect(Number(r.cost)).toBe(0);
    }
    const events = await app.db
      .select()
      .from(sysAgentAudit)
      .where(and(eq(sysAgentAudit.turnId, refusedRows[0]!.id), eq(sysAgentAudit.type, "guardrail")));
    expect(events.map((e) => e.payload.code)).toEqual(["budget_unpriced_model"]);
  });

  it("a drawer turn under a user's hard budget is refused alike", async () => {
    await saveLimits(
      app.db,
      counters,
      acme,
      { scope: "user", subjectId: admin, ...NO_LIMITS, dailyHardUsd: "5" },
      admin,
    );
    try {
      const events: PipelineEvent[] = [];
      for await (const event of pipeline.run(
        { tenantId: acme, apiKeyId: null, userId: admin, source: "drawer" },
        { model: "mystery", messages: [{ role: "user", content: "hi" }] },
        { stream: true },
      ))
        events.push(event);
      expect(events.at(-1)).toMatchObject({
        type: "error",
        error: { class: "budget_unpriced_model", status: 429 },
      });
      expect(upstream.requests).toHaveLength(0);
    } finally {
      await saveLimits(app.db, counters, acme, { scope: "user", subjectId: admin, ...NO_LIMITS }, admin);
    }
  });

  it("with an assumed price set by the tenant admin, passes under the hard budget at that price, recorded as assumed and counted against the budget", async () => {
    const { secret, key } = await newKey("assumed", "5");
    const saved = await saveAssumedPrice(
      app.db,
      gateway.config,
      acme,
      {
        provider: "up",
        model: MYSTERY,
        price: { input: "2", output: "8", cachedInput: null, cacheWrite: null },
      },
      actor(),
    );
    expect(saved).toMatchObject({ provider: "up", model: MYSTERY, input: "2", output: "8" });
    try {
      const answer = await client(secret)
        .chat.completions.create({ model: "mystery", messages: [{ role: "user", content: "hi" }] })
        .withResponse();
      const row = await rowOf(answer.response.headers.get("x-request-id")!);
      // 1,000 input tokens at $2/M + 500 output tokens at $8/M = 0.002 + 0.004.
      expect(row.costStatus).toBe("assumed");
      expect(Number(row.cost)).toBe(0.006);
      expect(row.cost).toMatch(/^0\.0060*$/);
      // The budget's spend counter settled the assumed cost.
      const { readGovernanceSettings } = await import("@/features/limits/server/settings");
      const settings = await readGovernanceSettings(app.db, counters, acme);
      const view = settings.keys.find((k) => k.id === key.id)!.limits!;
      expect(view.spentToday).toBe("0.006");
      expect(settings.assumedPrices).toMatchObject([
        { provider: "up", model: MYSTERY, input: "2", output: "8" },
      ]);
      // The change is in the admin-change log, before and after.
      const [change] = await app.db
        .select()
        .from(adminChange)
        .where(and(eq(adminChange.tenantId, acme), eq(adminChange.objectType, "assumed_price")));
      expect(change).toMatchObject({
        action: "assumed_price.set",
        objectId: `up/${MYSTERY}`,
        before: null,
        after: {
          provider: "up",
          model: MYSTERY,
          input: "2",
          output: "8",
          cachedInput: null,
          cacheWrite: null,
        },
      });
    } finally {
      await saveAssumedPrice(
        app.db,
        gateway.config,
        acme,
        { provider: "up", model: MYSTERY, price: null },
        actor(),
      );
    }
    // Removed, the model is refused under the budget again.
    const refused = await client(secret)
      .chat.completions.create({ model: "mystery", messages: [{ role: "user", content: "hi" }] })
      .catch((error: unknown) => error);
    expect(refused).toMatchObject({ status: 429, code: "budget_unpriced_model" });
    const changes = await app.db
      .select()
      .from(adminChange)
      .where(and(eq(adminChange.tenantId, acme), eq(adminChange.objectType, "assumed_price")));
    expect(changes.map((c) => c.action).sort()).toEqual(["assumed_price.removed", "assumed_price.set"]);
  });

  it("refuses an assumed price for a model the gateway never calls, or a price of 0, naming the field", async () => {
    const { assumedPriceInput } = await import("@/features/limits/contracts");
    await expect(
      saveAssumedPrice(
        app.db,
        gateway.config,
        acme,
        { provider: "nope", model: MYSTERY, price: null },
        actor(),
      ),
    ).rejects.toMatchObject({
      code: "validation_failed",
      extra: { fields: { provider: [expect.stringContaining("nope")] } },
    });
    await expect(
      saveAssumedPrice(
        app.db,
        gateway.config,
        acme,
        { provider: "up", model: "other", price: null },
        actor(),
      ),
    ).rejects.toMatchObject({
      code: "validation_failed",
      extra: { fields: { model: [expect.stringContaining("up/other")] } },
    });
    const zero = assumedPriceInput.safeParse({
      provider: "up",
      model: MYSTERY,
      price: { input: "0", output: "1" },
    });
    expect(zero.success).toBe(false);
    expect(JSON.stringify(zero.error?.issues)).toContain("not free");
  });
});
