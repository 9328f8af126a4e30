// Model-based guardrail checks as the product composes them (features/guardrails/server/engine.ts): an LLM judge
// through the tenant's own alias, with its instructions from the prompt store, and a moderation model, each a
// metered call of its own whose ledger row (source `guardrail`) bills the same tenant; a judge that cannot answer
// does what the rule's onError says.
import { and, eq } from "drizzle-orm";
import OpenAI from "openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { sysAgentTurn } from "@/db/schema";
import { createTenantGuardrailEngine } from "@/features/guardrails/server";
import { createApiKey } from "@/features/keys/server/keys";
import { createVersion } from "@/features/prompts/server";
import { parseAllowList } from "@/lib/agent/toolsets/web/net-guard";
import { parseGatewayConfig } from "@/lib/gateway/config";
import { Gateway } from "@/lib/gateway/gateway";
import type { BatchedGovernanceRecorder } from "@/lib/governance/batched-recorder";
import type { GuardrailPolicy, GuardrailRule } from "@/lib/guardrails/types";
import type { Pipeline } from "@/lib/pipeline/pipeline";
import type { FakeProvider } from "../fakes/http";
import { startFakeOpenAI } from "../fakes/openai";
import { useSeededAppDatabase } from "../helpers/app-db";
import { testDbKinds } from "../helpers/db";
import { ledgerRowOf, startLeanApi } from "../helpers/lean-api";

const judgeRule = (
  check: Extract<GuardrailRule["check"], { type: "model" }>,
  onError: "open" | "closed" = "closed",
) =>
  ({ id: "judge", name: "Judge", stage: "input", check, action: "block", onError }) satisfies GuardrailRule;

describe.each(testDbKinds)("guardrail judges on %s", (kind) => {
  let app: Awaited<ReturnType<typeof useSeededAppDatabase>>;
  let openai: FakeProvider;
  let closeApi: () => Promise<void>;
  let root: string;
  let secret: string;
  let tenantId: string;
  let recorder: BatchedGovernanceRecorder;
  let policy: GuardrailPolicy = { rules: [] };

  beforeAll(async () => {
    app = await useSeededAppDatabase(kind);
    openai = await startFakeOpenAI();
    const gateway = new Gateway(
      parseGatewayConfig(
        {
          providers: { oa: { type: "openai", baseUrl: openai.url } },
          models: {
            gpt: { candidates: [{ provider: "oa", model: "gpt-4o-mini" }] },
            judge: { candidates: [{ provider: "oa", model: "gpt-4o-mini" }] },
            mod: { candidates: [{ provider: "oa", model: "omni-moderation-latest" }] },
          },
          retry: { maxRetries: 0 },
        },
        "test",
        {},
      ),
    );
    let deps: { pipeline: Pipeline; recorder: BatchedGovernanceRecorder } | undefined;
    const engine = createTenantGuardrailEngine({
      allow: parseAllowList(""),
      metered: () => deps!,
      db: async () => app.db,
    });
    const api = await startLeanApi(app.db, gateway, undefined, { policy: async () => policy, engine });
    deps = { pipeline: api.pipeline, recorder: api.recorder };
    ({ root, recorder } = api);
    closeApi = api.close;
    tenantId = await app.tenantId("acme");
    const admin = await app.userId("admin@acme.test");
    secret = (await createApiKey(app.db, { tenantId, name: "judged app", createdBy: admin })).secret;
    await createVersion(
      app.db,
      tenantId,
      {
        name: "guardrails/judge",
        type: "chat",
        messages: [{ role: "system", content: "Flag any text that mentions Project Falcon." }],
        labels: ["production"],
      },
      { id: admin, email: "admin@acme.test" },
      { edit: true, admin: true },
    );
  });
  afterAll(async () => {
    await closeApi();
    await openai.close();
    await app.close();
  });
  beforeEach(() => {
    openai.reset();
    policy = { rules: [] };
  });

  const ask = (content: string) =>
    new OpenAI({ apiKey: secret, baseURL: `${root}/v1`, maxRetries: 0 }).chat.completions
      .create({ model: "gpt", messages: [{ role: "user", content }] })
      .withResponse();
  const judgeRows = async () => {
    await recorder.flush();
    return app.db
      .select()
      .from(sysAgentTurn)
      .where(and(eq(sysAgentTurn.tenantId, tenantId), eq(sysAgentTurn.source, "guardrail")));
  };

  it("an LLM judge with its prompt from the prompt store blocks what it flags; its call is the tenant's ledger row", async () => {
    policy = {
      rules: [judgeRule({ type: "model", alias: "judge", promptRef: { name: "guardrails/judge" } })],
    };
    const before = (await judgeRows()).length;
    openai.enqueue({ kind: "text", text: '{"flagged": true, "reason": "mentions the project"}' });
    const refused = await ask("Tell me about Project Falcon").catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
    expect((refused as InstanceType<typeof OpenAI.BadRequestError>).code).toBe("guardrail_blocked");
    // Only the judge was asked, with the stored prompt as its instructions; the model never was.
    expect(openai.requests).toHaveLength(1);
    const judged = openai.requests[0]!.body as {
      model: string;
      messages: { role: string; content: string }[];
    };
    expect(judged.messages[0]!.content).toContain("Flag any text that mentions Project Falcon.");
    expect(judged.messages[1]!.content).toContain("Tell me about Project Falcon");
    const rows = await judgeRows();
    expect(rows.length).toBe(before + 1);
    expect(rows.at(-1)).toMatchObject({ status: "success", requestedModel: "judge", tenantId });
    // Not flagged: the call goes on to the model.
    openai.enqueue(
      { kind: "text", text: '{"flagged": false, "reason": "fine"}' },
      { kind: "text", text: "hello" },
    );
    const { data } = await ask("What is the weather like?");
    expect(data.choices[0]!.message.content).toBe("hello");
  });

  it("a moderation model through the tenant's alias blocks flagged text, as a metered call", async () => {
    policy = { rules: [judgeRule({ type: "model", alias: "mod", moderation: true })] };
    const before = (await judgeRows()).length;
    const refused = await ask("FLAG_ME please").catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
    expect((refused as Error).message).toMatch(/Judge.*violence/);
    expect(openai.requests.map((r) => r.path)).toEqual(["/v1/moderations"]);
    const passed = await ask("a friendly question");
    expect(passed.data.choices[0]!.message.content).toBeTruthy();
    expect((await judgeRows()).length).toBe(before + 2);
  });

  it("a judge that cannot answer (a missing stored prompt, an unparseable verdict) follows onError", async () => {
    policy = { rules: [judgeRule({ type: "model", alias: "judge", promptRef: { name: "no/such/prompt" } })] };
    const closed = await ask("hello").catch((e: unknown) => e);
    expect((closed as Error).message).toMatch(/could not run/);
    policy = { rules: [judgeRule({ type: "model", alias: "judge" }, "open")] };
    openai.enqueue({ kind: "text", text: "I think it is fine" }, { kind: "text", text: "answer" });
    const open = await ask("hello");
    expect(open.response.headers.get("x-tollgate-guardrail")).toBe('check_failed;rule="judge";on_error=open');
    const row = await ledgerRowOf(app.db, recorder, open.response.headers.get("x-request-id")!);
    expect(row.status).toBe("success");
  });
});
