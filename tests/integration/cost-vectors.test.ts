// Cost vectors: scripted OpenAI and Anthropic usage (cached input, cache writes, reasoning, a long-context
// tier) through /v1 (official SDKs, JSON and streams, embeddings, responses) and through the drawer's agent, each
// ledger row's cost checked against exact arithmetic from the catalog's published rates
// (@pydantic/genai-prices 0.1.8, USD per 1M tokens):
//   gpt-4.1                 input 2,   cached input 0.5,   output 8
//   o4-mini                 input 1.1, cached input 0.275, output 4.4 (reasoning billed as output)
//   claude-sonnet-4-5       input 3,   cache read 0.3,     cache write 3.75, output 15
//     above 200k input      input 6,   cache read 0.6,     cache write 7.5,  output 22.5
//   text-embedding-3-small  input 0.02
import Anthropic from "@anthropic-ai/sdk";
import Big from "big.js";
import { eq } from "drizzle-orm";
import OpenAI from "openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { sysAgentTurn } from "@/db/schema";
import { createApiKey } from "@/features/keys/server/keys";
import { ToolRegistry } from "@/lib/agent/registry";
import { AgentService } from "@/lib/agent/service";
import { defineTool, StaticToolSet } from "@/lib/agent/tool";
import { parseGatewayConfig } from "@/lib/gateway/config";
import { Gateway } from "@/lib/gateway/gateway";
import { PRICE_CATALOG } from "@/lib/gateway/pricing";
import type { BatchedGovernanceRecorder } from "@/lib/governance/batched-recorder";
import { DrizzleConversationStore } from "@/lib/governance/conversations";
import { getTurnOrThrow } from "@/lib/governance/ledger";
import { GovernanceRecorder } from "@/lib/governance/recorder";
import type { AgentEvent, TurnSummary } from "@/lib/turns/events";
import { startFakeAnthropic } from "../fakes/anthropic";
import type { FakeProvider } from "../fakes/http";
import { startFakeOpenAI } from "../fakes/openai";
import { useSeededAppDatabase } from "../helpers/app-db";
import { testDbKinds } from "../helpers/db";

const lookup = defineTool({
  name: "lookup",
  description: "Looks something up",
  parameters: z.object({ q: z.string() }),
  execute: async ({ q }) => ({ found: q }),
});

/** The ledger's numeric as the shortest decimal, so "0.0041250000" reads "0.004125". */
const exact = (cost: string | null) => (cost === null ? null : new Big(cost).toFixed());

describe.each(testDbKinds)("cost vectors on %s", (kind) => {
  let app: Awaited<ReturnType<typeof useSeededAppDatabase>>;
  let openai: FakeProvider;
  let anthropic: FakeProvider;
  let gateway: Gateway;
  let closeApi: () => Promise<void>;
  let root: string;
  let secret: string;
  let acme: string;
  let member: string;
  let recorder: BatchedGovernanceRecorder;

  beforeAll(async () => {
    app = await useSeededAppDatabase(kind);
    openai = await startFakeOpenAI();
    anthropic = await startFakeAnthropic();
    gateway = new Gateway(
      parseGatewayConfig(
        {
          providers: {
            oa: { type: "openai", baseUrl: openai.url },
            an: { type: "anthropic", baseUrl: anthropic.url },
          },
          models: {
            gpt: { candidates: [{ provider: "oa", model: "gpt-4.1" }] },
            reasoner: { candidates: [{ provider: "oa", model: "o4-mini" }] },
            claude: { candidates: [{ provider: "an", model: "claude-sonnet-4-5" }] },
            embed: { candidates: [{ provider: "oa", model: "text-embedding-3-small" }] },
            contract: { candidates: [{ provider: "oa", model: "gpt-4o-mini" }] },
          },
          // A negotiated price: wins over the catalog's gpt-4o-mini (0.15 / 0.075 / 0.6).
          prices: { "oa/gpt-4o-mini": { input: "1", cachedInput: "0.5", output: "2" } },
          retry: { maxRetries: 0 },
        },
        "test",
        {},
      ),
    );
    const api = await import("../helpers/lean-api").then((m) => m.startLeanApi(app.db, gateway));
    ({ root, recorder } = api);
    closeApi = api.close;
    acme = await app.tenantId("acme");
    member = await app.userId("member@acme.test");
    const admin = await app.userId("admin@acme.test");
    secret = (await createApiKey(app.db, { tenantId: acme, name: "cost vectors", createdBy: admin })).secret;
  });
  afterAll(async () => {
    await closeApi();
    await openai.close();
    await anthropic.close();
    await app.close();
  });
  beforeEach(() => {
    openai.reset();
    anthropic.reset();
  });

  const oa = () => new OpenAI({ apiKey: secret, baseURL: `${root}/v1`, maxRetries: 0 });
  const an = () => new Anthropic({ apiKey: secret, baseURL: root, maxRetries: 0 });
  const rowOf = async (id: string | null) => {
    await recorder.flush();
    const [row] = await app.db.select().from(sysAgentTurn).where(eq(sysAgentTurn.id, id!));
    return row!;
  };

  it("prices at the catalog this test's arithmetic is taken from", () => {
    expect(PRICE_CATALOG).toMatchObject({ source: "@pydantic/genai-prices", version: "0.1.8" });
  });

  describe("/v1", () => {
    it("OpenAI chat JSON: cached input at the cached rate, reasoning inside the output (o4-mini)", async () => {
      openai.enqueue({
        kind: "text",
        text: "Thought it through.",
        model: "o4-mini-2025-04-16",
        usage: { input: 1000, cached: 3000, output: 500, reasoning: 300 },
      });
      const { response } = await oa()
        .chat.completions.create({ model: "reasoner", messages: [{ role: "user", content: "think" }] })
        .withResponse();
      const row = await rowOf(response.headers.get("x-request-id"));
      expect(row).toMatchObject({
        inputTokens: 1000,
        cachedInputTokens: 3000,
        outputTokens: 500,
        reasoningTokens: 300,
        servedModel: "o4-mini-2025-04-16",
      });
      // 1,000 × 1.1 + 3,000 × 0.275 + 500 × 4.4 = 1100 + 825 + 2200 = 4125 → / 1M
      expect(exact(row.cost)).toBe("0.004125");
    });

    it("OpenAI chat stream: the usage chunk prices the row (gpt-4.1)", async () => {
      openai.enqueue({
        kind: "text",
        text: "Streamed answer.",
        model: "gpt-4.1-2025-04-14",
        usage: { input: 1234, cached: 2048, output: 517 },
      });
      const { data: stream, response } = await oa()
        .chat.completions.create({ model: "gpt", stream: true, messages: [{ role: "user", content: "go" }] })
        .withResponse();
      for await (const _ of stream) {
        // drain
      }
      const row = await rowOf(response.headers.get("x-request-id"));
      expect(row).toMatchObject({ inputTokens: 1234, cachedInputTokens: 2048, outputTokens: 517 });
      // 1,234 × 2 + 2,048 × 0.5 + 517 × 8 = 2468 + 1024 + 4136 = 7628 → / 1M
      expect(exact(row.cost)).toBe("0.007628");
    });

    it("Anthropic messages JSON: cache reads and cache writes at their own rates (claude-sonnet-4-5)", async () => {
      anthropic.enqueue({
        kind: "text",
        text: "Cached.",
        model: "claude-sonnet-4-5-20250929",
        usage: { input: 21, cached: 188_086, cacheWrite: 3000, output: 393 },
      });
      const { response } = await an()
        .messages.create({ model: "claude", max_tokens: 500, messages: [{ role: "user", content: "hi" }] })
        .withResponse();
      const row = await rowOf(response.headers.get("x-request-id"));
      expect(row).toMatchObject({
        inputTokens: 21,
        cachedInputTokens: 188_086,
        cacheWriteTokens: 3000,
        outputTokens: 393,
      });
      // 191,107 input tokens in all (under 200k): 21 × 3 + 188,086 × 0.3 + 3,000 × 3.75 + 393 × 15
      //   = 63 + 56425.8 + 11250 + 5895 = 73633.8 → / 1M
      expect(exact(row.cost)).toBe("0.0736338");
    });

    it("Anthropic messages stream above 200k input tokens: every token at the long-context tier", async () => {
      anthropic.enqueue({
        kind: "text",
        text: "A long read.",
        model: "claude-sonnet-4-5-20250929",
        usage: { input: 5000, cached: 190_000, cacheWrite: 10_000, output: 1000 },
      });
      const stream = an().messages.stream({
        model: "claude",
        max_tokens: 2000,
        messages: [{ role: "user", content: "read it all" }],
      });
      await stream.finalMessage();
      const row = await rowOf((await stream.withResponse()).response.headers.get("x-request-id"));
      expect(row).toMatchObject({
        inputTokens: 5000,
        cachedInputTokens: 190_000,
        cacheWriteTokens: 10_000,
        outputTokens: 1000,
      });
      // 205,000 input tokens in all (over 200k): 5,000 × 6 + 190,000 × 0.6 + 10,000 × 7.5 + 1,000 × 22.5
      //   = 30000 + 114000 + 75000 + 22500 = 241500 → / 1M
      expect(exact(row.cost)).toBe("0.2415");
    });

    it("embeddings: input tokens at the embedding model's rate", async () => {
      openai.enqueue({ kind: "text", text: "", model: "text-embedding-3-small", usage: { input: 12_345 } });
      const { response } = await oa()
        .embeddings.create({ model: "embed", input: ["one", "two"], dimensions: 8 })
        .withResponse();
      const row = await rowOf(response.headers.get("x-request-id"));
      expect(row).toMatchObject({ inputTokens: 12_345, outputTokens: 0 });
      // 12,345 × 0.02 = 246.9 → / 1M
      expect(exact(row.cost)).toBe("0.0002469");
    });

    it("responses, JSON and stream: cached input and reasoning priced like chat", async () => {
      openai.enqueue({
        kind: "text",
        text: "Reasoned.",
        model: "o4-mini-2025-04-16",
        usage: { input: 800, cached: 200, output: 600, reasoning: 400 },
      });
      const { response } = await oa()
        .responses.create({ model: "reasoner", input: "why?", reasoning: { effort: "high" } })
        .withResponse();
      const row = await rowOf(response.headers.get("x-request-id"));
      expect(row).toMatchObject({
        inputTokens: 800,
        cachedInputTokens: 200,
        outputTokens: 600,
        reasoningTokens: 400,
      });
      // 800 × 1.1 + 200 × 0.275 + 600 × 4.4 = 880 + 55 + 2640 = 3575 → / 1M
      expect(exact(row.cost)).toBe("0.003575");

      openai.enqueue({
        kind: "text",
        text: "Streamed.",
        model: "gpt-4.1-2025-04-14",
        usage: { input: 100, cached: 50, output: 50 },
      });
      const { data: stream, response: streamed } = await oa()
        .responses.create({ model: "gpt", input: "go", stream: true })
        .withResponse();
      for await (const _ of stream) {
        // drain
      }
      const streamRow = await rowOf(streamed.headers.get("x-request-id"));
      expect(streamRow).toMatchObject({ inputTokens: 100, cachedInputTokens: 50, outputTokens: 50 });
      // 100 × 2 + 50 × 0.5 + 50 × 8 = 200 + 25 + 400 = 625 → / 1M
      expect(exact(streamRow.cost)).toBe("0.000625");
    });

    it("a price in the gateway config overrides the catalog's", async () => {
      openai.enqueue({
        kind: "text",
        text: "Contract rates.",
        model: "gpt-4o-mini-2024-07-18",
        usage: { input: 1000, cached: 1000, output: 1000 },
      });
      const { response } = await oa()
        .chat.completions.create({ model: "contract", messages: [{ role: "user", content: "hi" }] })
        .withResponse();
      const row = await rowOf(response.headers.get("x-request-id"));
      // 1,000 × 1 + 1,000 × 0.5 + 1,000 × 2 = 3500 → / 1M (the catalog would say 0.00075)
      expect(exact(row.cost)).toBe("0.0035");
    });
  });

  describe("the drawer's agent", () => {
    async function turn(model: string) {
      const agent = new AgentService({
        gateway,
        registry: new ToolRegistry().register(new StaticToolSet("t", [lookup])),
        store: new DrizzleConversationStore(async () => app.db),
        observer: new GovernanceRecorder(async () => app.db),
      });
      const { createConversation } = await import("@/lib/governance/conversations");
      const conversationId = (await createConversation(app.db, { tenantId: acme, userId: member })).id;
      const events: AgentEvent[] = [];
      for await (const e of agent.send(
        { tenantId: acme, userId: member, role: "member", conversationId },
        { message: "find it", model },
        new AbortController().signal,
      )) {
        events.push(e);
      }
      const { summary } = events.at(-1) as { summary: TurnSummary };
      return getTurnOrThrow(app.db, { tenantId: acme, turnId: summary.turnId });
    }

    it("sums two Anthropic round trips with a cache write, then a cache read (claude-sonnet-4-5)", async () => {
      anthropic.enqueue(
        {
          kind: "tool_calls",
          calls: [{ name: "lookup", args: { q: "a" } }],
          model: "claude-sonnet-4-5-20250929",
          usage: { input: 2000, cacheWrite: 1500, output: 100 },
        },
        {
          kind: "text",
          text: "Found a.",
          model: "claude-sonnet-4-5-20250929",
          usage: { input: 50, cached: 1500, output: 200 },
        },
      );
      const row = await turn("claude");
      expect(row).toMatchObject({
        status: "success",
        source: "drawer",
        rounds: 2,
        inputTokens: 2050,
        cachedInputTokens: 1500,
        cacheWriteTokens: 1500,
        outputTokens: 300,
      });
      // round 1: 2,000 × 3 + 1,500 × 3.75 + 100 × 15 = 6000 + 5625 + 1500 = 13125
      // round 2: 50 × 3 + 1,500 × 0.3 + 200 × 15 = 150 + 450 + 3000 = 3600
      // (13125 + 3600) / 1M
      expect(exact(row.cost)).toBe("0.016725");
    });

    it("sums two OpenAI round trips with cached input and reasoning (o4-mini)", async () => {
      openai.enqueue(
        {
          kind: "tool_calls",
          calls: [{ name: "lookup", args: { q: "b" } }],
          model: "o4-mini-2025-04-16",
          usage: { input: 1000, output: 300, reasoning: 200 },
        },
        {
          kind: "text",
          text: "Found b.",
          model: "o4-mini-2025-04-16",
          usage: { input: 100, cached: 1000, output: 400, reasoning: 100 },
        },
      );
      const row = await turn("reasoner");
      expect(row).toMatchObject({
        status: "success",
        rounds: 2,
        inputTokens: 1100,
        cachedInputTokens: 1000,
        outputTokens: 700,
        reasoningTokens: 300,
      });
      // round 1: 1,000 × 1.1 + 300 × 4.4 = 1100 + 1320 = 2420
      // round 2: 100 × 1.1 + 1,000 × 0.275 + 400 × 4.4 = 110 + 275 + 1760 = 2145
      // (2420 + 2145) / 1M
      expect(exact(row.cost)).toBe("0.004565");
    });
  });
});
