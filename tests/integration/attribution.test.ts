// End-user attribution on the usage ledger: what an API call says about who asked is stored masked, cleaned and
// bounded by both recorders, and the ledger filters by end user, tag and API key name within the caller's tenant.
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Database } from "@/db";
import { sysAgentAudit, sysAgentTurn, usageDaily } from "@/db/schema";
import type { PageQuery, ProviderContext } from "@/features/admin-tables/contracts";
import { agentTurnsProvider } from "@/features/admin-tables/server/providers/agent-turns";
import { createApiKey } from "@/features/keys/server/keys";
import { BatchedGovernanceRecorder } from "@/lib/governance/batched-recorder";
import { GovernanceRecorder } from "@/lib/governance/recorder";
import type { ApiTurnSummary } from "@/lib/turns/events";
import type { ApiAttribution, ApiTurnStart, TurnObserver } from "@/lib/turns/observer";
import { useSeededAppDatabase } from "../helpers/app-db";
import { testDbKinds } from "../helpers/db";

const OPENAI_LIKE_KEY = `sk-proj-${"a1B2".repeat(8)}`;

const summaryOf = (turn: ApiTurnStart): ApiTurnSummary => ({
  turnId: turn.turnId,
  conversationId: null,
  status: "success",
  requestedModel: turn.requestedModel,
  servedProvider: "up",
  servedAdapter: "openai",
  servedModel: "gpt-4o-mini",
  fallbackIndex: 0,
  attempts: [],
  usage: { inputTokens: 10, cachedInputTokens: 0, cacheWriteTokens: 0, outputTokens: 5, reasoningTokens: 0 },
  cost: "0.0001",
  rounds: 1,
  toolTrace: [],
  timeToFirstTokenMs: 5,
  latencyMs: 10,
});

const query = (filters: Record<string, string>): PageQuery => ({
  filters,
  segment: null,
  sort: { field: "startedAt", direction: "desc" },
  cursor: null,
  limit: 50,
});

describe.each(testDbKinds)("API attribution on the usage ledger on %s", (kind) => {
  let app: Awaited<ReturnType<typeof useSeededAppDatabase>>;
  let db: Database;
  let acme: string;
  let globex: string;
  let acmeAdmin: string;
  let globexAdmin: string;
  let billingKey: string;
  let supportKey: string;
  let globexBillingKey: string;

  beforeAll(async () => {
    app = await useSeededAppDatabase(kind);
    db = app.db;
    acme = await app.tenantId("acme");
    globex = await app.tenantId("globex");
    acmeAdmin = await app.userId("admin@acme.test");
    globexAdmin = await app.userId("admin@globex.test");
    const key = async (tenantId: string, name: string, createdBy: string) =>
      (await createApiKey(db, { tenantId, name, createdBy })).key.id;
    billingKey = await key(acme, "Billing service", acmeAdmin);
    supportKey = await key(acme, "Support bot", acmeAdmin);
    globexBillingKey = await key(globex, "Billing service", globexAdmin);
  });
  afterAll(async () => {
    await app.close();
  });
  beforeEach(async () => {
    await db.delete(sysAgentAudit);
    await db.delete(sysAgentTurn);
    await db.delete(usageDaily);
  });

  let clock = Date.UTC(2026, 10, 20, 12);
  /** A second later than the last turn, so the ledger's order is the order they were made. */
  const tick = () => {
    clock += 1000;
    return new Date(clock);
  };
  const apiTurn = (
    tenantId: string,
    apiKeyId: string,
    attribution?: ApiAttribution,
    userId = tenantId === acme ? acmeAdmin : globexAdmin,
  ): ApiTurnStart => ({
    turnId: crypto.randomUUID(),
    tenantId,
    userId,
    requestedModel: "team-gpt",
    message: "hello",
    toolsOffered: [],
    startedAt: tick(),
    source: "api",
    conversationId: null,
    apiKeyId,
    attribution,
  });

  const record = async (recorder: TurnObserver & { flush?: () => Promise<void> }, turn: ApiTurnStart) => {
    await recorder.start(turn);
    await recorder.end(summaryOf(turn));
    await recorder.flush?.();
  };
  const rowOf = async (turnId: string) =>
    (await db.select().from(sysAgentTurn).where(eq(sysAgentTurn.id, turnId)))[0]!;

  const recorders = {
    "per-turn": () => new GovernanceRecorder(async () => db),
    batched: () => new BatchedGovernanceRecorder(async () => db, { maxDelayMs: 1 }),
  };

  describe.each(Object.keys(recorders) as (keyof typeof recorders)[])("the %s recorder", (name) => {
    it("stores the end user, tags and metadata masked and cleaned of NUL and lone surrogates", async () => {
      const turn = apiTurn(acme, billingKey, {
        endUser: `customer-42 ${OPENAI_LIKE_KEY}`,
        tags: ["team\u0000a", "beta\ud800", " beta\ud800 ", "", OPENAI_LIKE_KEY],
        metadata: { api_key: "hunter2-plain", note: `token is ${OPENAI_LIKE_KEY}`, "k\u0000": "v" },
      });
      await record(recorders[name](), turn);
      const row = await rowOf(turn.turnId);
      expect(row.endUser).toBe("customer-42 [masked:openai_key]");
      // Trimmed, the empty one dropped, the repeat dropped.
      expect(row.tags).toEqual(["team\ufffda", "beta\ufffd", "[masked:openai_key]"]);
      expect(row.requestMetadata).toEqual({
        api_key: "[masked]",
        note: "token is [masked:openai_key]",
        "k\ufffd": "v",
      });
      expect(JSON.stringify(row)).not.toContain("sk-proj");
    });

    it("cuts oversized values to OpenAI's bounds instead of failing the call", async () => {
      const turn = apiTurn(acme, billingKey, {
        endUser: "u".repeat(1_000),
        tags: ["t".repeat(100), ...Array.from({ length: 30 }, (_, i) => `tag-${i}`)],
        metadata: Object.fromEntries([
          [`${"k".repeat(100)}`, "v".repeat(2_000)],
          ...Array.from({ length: 20 }, (_, i) => [`key${i}`, `value${i}`]),
        ]),
      });
      await record(recorders[name](), turn);
      const row = await rowOf(turn.turnId);
      expect(row.status).toBe("success");
      expect(row.endUser).toBe("u".repeat(256));
      expect(row.tags).toHaveLength(20);
      expect(row.tags[0]).toBe("t".repeat(64));
      const metadata = row.requestMetadata!;
      expect(Object.keys(metadata)).toHaveLength(16);
      expect(metadata["k".repeat(64)]).toBe("v".repeat(512));
      expect(metadata.key0).toBe("value0");
    });

    it("leaves a call without attribution with no end user, no tags and no metadata", async () => {
      const turn = apiTurn(acme, billingKey);
      await record(recorders[name](), turn);
      expect(await rowOf(turn.turnId)).toMatchObject({ endUser: null, tags: [], requestMetadata: null });
    });
  });

  describe("the ledger page", () => {
    const acmeCtx: ProviderContext = { tenantId: "", superAdmin: false };
    const provider = () => agentTurnsProvider(async () => db);
    const seed = async () => {
      const recorder = new GovernanceRecorder(async () => db);
      acmeCtx.tenantId = acme;
      const turns = {
        aliceBilling: apiTurn(acme, billingKey, { endUser: "alice", tags: ["prod", "eu"], metadata: null }),
        bobSupport: apiTurn(acme, supportKey, { endUser: "bob", tags: ["prod"], metadata: null }),
        aliceSupport: apiTurn(acme, supportKey, { endUser: "alice", tags: ["staging"], metadata: null }),
        // Another tenant's calls with the same end user, tag and key name.
        globexAlice: apiTurn(globex, globexBillingKey, { endUser: "alice", tags: ["prod"], metadata: null }),
      };
      for (const turn of Object.values(turns)) await record(recorder, turn);
      return turns;
    };
    const ids = async (ctx: ProviderContext, filters: Record<string, string>) => {
      const page = provider();
      const { rows } = await page.rows(ctx, query(filters));
      const { count } = await page.count(ctx, query(filters));
      expect(count).toBe(rows.length);
      return rows.map((r) => r.id).sort();
    };
    const sorted = (...turns: ApiTurnStart[]) => turns.map((t) => t.turnId).sort();

    it("filters by end user, tag and API key name, returning only the caller's tenant's rows", async () => {
      const t = await seed();
      expect(await ids(acmeCtx, { endUser: "alice" })).toEqual(sorted(t.aliceBilling, t.aliceSupport));
      expect(await ids(acmeCtx, { tag: "prod" })).toEqual(sorted(t.aliceBilling, t.bobSupport));
      expect(await ids(acmeCtx, { tag: "eu" })).toEqual(sorted(t.aliceBilling));
      expect(await ids(acmeCtx, { apiKey: "billing" })).toEqual(sorted(t.aliceBilling));
      expect(await ids(acmeCtx, { apiKey: "Support" })).toEqual(sorted(t.bobSupport, t.aliceSupport));
      expect(await ids(acmeCtx, { endUser: "alice", tag: "prod", apiKey: "bill" })).toEqual(
        sorted(t.aliceBilling),
      );
      expect(await ids(acmeCtx, { endUser: "nobody" })).toEqual([]);
      // LIKE wildcards in a key name are taken literally.
      expect(await ids(acmeCtx, { apiKey: "%" })).toEqual([]);
      const globexCtx = { tenantId: globex, superAdmin: false };
      expect(await ids(globexCtx, { endUser: "alice" })).toEqual(sorted(t.globexAlice));
      expect(await ids(globexCtx, { apiKey: "Support" })).toEqual([]);
    });

    it("lets the super admin filter across tenants, or within one", async () => {
      const t = await seed();
      const all: ProviderContext = { tenantId: null, superAdmin: true };
      expect(await ids(all, { apiKey: "Billing" })).toEqual(sorted(t.aliceBilling, t.globexAlice));
      expect(await ids(all, { endUser: "alice", tenantId: globex })).toEqual(sorted(t.globexAlice));
    });

    it("shows an API call's key name, end user and tags, and a chat turn's user", async () => {
      const t = await seed();
      const chatTurn = crypto.randomUUID();
      const member = await app.userId("member@acme.test");
      await db.insert(sysAgentTurn).values({
        id: chatTurn,
        tenantId: acme,
        userId: member,
        source: "drawer",
        requestedModel: "m",
        status: "success",
        startedAt: tick(),
      });
      // An API row without a key (the sample history's) shows its user rather than nothing.
      const keyless = apiTurn(acme, billingKey);
      delete keyless.apiKeyId;
      await record(new GovernanceRecorder(async () => db), keyless);
      const { rows } = await provider().rows(acmeCtx, query({}));
      const byId = new Map(rows.map((r) => [r.id, r]));
      expect(byId.get(t.aliceBilling.turnId)).toMatchObject({
        caller: "Billing service",
        apiKeyName: "Billing service",
        userEmail: "admin@acme.test",
        endUser: "alice",
        tags: ["prod", "eu"],
        tagList: "prod, eu",
      });
      expect(byId.get(t.bobSupport.turnId)).toMatchObject({ caller: "Support bot", endUser: "bob" });
      expect(byId.get(chatTurn)).toMatchObject({
        caller: "member@acme.test",
        apiKeyName: null,
        endUser: null,
        tags: [],
        tagList: "",
      });
      expect(byId.get(keyless.turnId)).toMatchObject({ caller: "admin@acme.test", apiKeyName: null });
      const detail = await provider().detail(acmeCtx, t.aliceBilling.turnId);
      expect(detail?.row).toMatchObject({
        caller: "Billing service",
        endUser: "alice",
        tags: ["prod", "eu"],
      });
      // Another tenant's turn is not found.
      expect(await provider().detail(acmeCtx, t.globexAlice.turnId)).toBeNull();
    });
  });
});
