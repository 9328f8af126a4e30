// /v1 callers served by Azure OpenAI: the OpenAI SDK's requests carried whole to a dated deployment path or the
// v1 API, the Anthropic SDK's translated, the Responses API, with the ledger's exact cost and Azure's content
// filter in the audit trail. The fake resource checks the key, the Entra ID token, api-version and deployment.
import Anthropic from "@anthropic-ai/sdk";
import { eq } from "drizzle-orm";
import OpenAI from "openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { sysAgentTurn } from "@/db/schema";
import { createApiKey } from "@/features/keys/server/keys";
import { parseGatewayConfig } from "@/lib/gateway/config";
import { Gateway } from "@/lib/gateway/gateway";
import type { BatchedGovernanceRecorder } from "@/lib/governance/batched-recorder";
import {
  azureAnswerFiltered,
  azurePromptFiltered,
  type FakeAzureOpenAI,
  startFakeAzureOpenAI,
} from "../fakes/azure-openai";
import type { FakeProvider } from "../fakes/http";
import { startFakeOpenAI } from "../fakes/openai";
import { useSeededAppDatabase } from "../helpers/app-db";
import { testDbKinds } from "../helpers/db";
import { auditEventsOf, ledgerRowOf, startLeanApi } from "../helpers/lean-api";

const KEY = "azure-key-fedcba9876543210";
const ENTRA = { tenantId: "tenant-1", clientId: "tollgate", clientSecret: "s3cret" };

describe.each(testDbKinds)("/v1 served by Azure OpenAI on %s", (kind) => {
  let app: Awaited<ReturnType<typeof useSeededAppDatabase>>;
  let azure: FakeAzureOpenAI;
  let openai: FakeProvider;
  let closeApi: () => Promise<void>;
  let root: string;
  let secret: string;
  let recorder: BatchedGovernanceRecorder;

  beforeAll(async () => {
    app = await useSeededAppDatabase(kind);
    azure = await startFakeAzureOpenAI({
      deployments: { "prod-4o": "gpt-4o-2024-11-20" },
      apiKey: KEY,
      entra: ENTRA,
    });
    openai = await startFakeOpenAI();
    const gateway = new Gateway(
      parseGatewayConfig(
        {
          providers: {
            "azure-dated": {
              type: "azure-openai",
              baseUrl: azure.endpoint,
              apiVersion: "2024-10-21",
              apiKeyEnv: "AZ_KEY",
            },
            "azure-v1": {
              type: "azure-openai",
              baseUrl: azure.endpoint,
              entra: {
                tenantIdEnv: "AZ_TENANT",
                clientIdEnv: "AZ_CLIENT",
                clientSecretEnv: "AZ_SECRET",
                authorityHost: azure.endpoint,
              },
            },
            oa: { type: "openai", baseUrl: openai.url },
          },
          models: {
            "az-4o": { candidates: [{ provider: "azure-dated", model: "prod-4o" }] },
            "az-v1": { candidates: [{ provider: "azure-v1", model: "prod-4o" }] },
            "az-or-gpt": {
              strategy: "weighted",
              candidates: [
                { provider: "azure-dated", model: "prod-4o", weight: 1 },
                { provider: "oa", model: "gpt-4o-mini", weight: 0.000001 },
              ],
            },
            "az-then-gpt": {
              candidates: [
                { provider: "azure-dated", model: "prod-4o" },
                { provider: "oa", model: "gpt-4o-mini" },
              ],
            },
          },
          retry: { maxRetries: 0 },
        },
        "test",
        { AZ_KEY: KEY, AZ_TENANT: ENTRA.tenantId, AZ_CLIENT: ENTRA.clientId, AZ_SECRET: ENTRA.clientSecret },
      ),
    );
    const api = await startLeanApi(app.db, gateway);
    ({ root, recorder } = api);
    closeApi = api.close;
    const created = await createApiKey(app.db, {
      tenantId: await app.tenantId("acme"),
      name: "azure app",
      createdBy: await app.userId("admin@acme.test"),
    });
    secret = created.secret;
  });
  afterAll(async () => {
    await closeApi();
    await azure.close();
    await openai.close();
    await app.close();
  });
  beforeEach(() => {
    azure.reset();
    openai.reset();
  });

  const oa = () => new OpenAI({ apiKey: secret, baseURL: `${root}/v1`, maxRetries: 0 });
  const an = () => new Anthropic({ apiKey: secret, baseURL: root, maxRetries: 0 });
  const rowOf = (id: string) => ledgerRowOf(app.db, recorder, id);
  const auditOf = (id: string) => auditEventsOf(app.db, recorder, id);

  it("carries an OpenAI chat call whole to the deployment, with Azure's key, and records its exact cost", async () => {
    azure.enqueue({ kind: "text", text: "Hello from Azure.", usage: { input: 1000, output: 100 } });
    const { data, response } = await oa()
      .chat.completions.create({ model: "az-4o", messages: [{ role: "user", content: "Hi" }], user: "u-42" })
      .withResponse();
    expect(data.choices[0]!.message.content).toBe("Hello from Azure.");
    expect(data.model).toBe("gpt-4o-2024-11-20");
    // Carried whole: Azure's own fields reach the caller untouched.
    expect((data as unknown as { prompt_filter_results: unknown[] }).prompt_filter_results).toHaveLength(1);
    expect(response.headers.get("x-tollgate-provider")).toBe("azure-dated");
    const sent = azure.requests[0]!;
    expect(sent.path).toBe("/openai/deployments/prod-4o/chat/completions?api-version=2024-10-21");
    expect(sent.headers["api-key"]).toBe(KEY);
    expect(sent.headers.authorization).toBeUndefined();
    expect(sent.body).toEqual({
      model: "prod-4o",
      messages: [{ role: "user", content: "Hi" }],
      user: "u-42",
    });
    const row = await rowOf(response.headers.get("x-request-id")!);
    expect(row).toMatchObject({
      status: "success",
      servedAdapter: "azure-openai",
      servedModel: "gpt-4o-2024-11-20",
      inputTokens: 1000,
      outputTokens: 100,
      costStatus: "priced",
    });
    expect(Number(row.cost)).toBe(0.0035);
  });

  it("records the routing strategy of a weighted alias on the ledger row, and none for a plain fallback one", async () => {
    azure.enqueue({ kind: "text", text: "weighted" }, { kind: "text", text: "plain" });
    const weighted = await oa()
      .chat.completions.create({ model: "az-or-gpt", messages: [{ role: "user", content: "Hi" }] })
      .withResponse();
    expect((await rowOf(weighted.response.headers.get("x-request-id")!)).routing).toBe("weighted");
    const plain = await oa()
      .chat.completions.create({ model: "az-4o", messages: [{ role: "user", content: "Hi" }] })
      .withResponse();
    expect((await rowOf(plain.response.headers.get("x-request-id")!)).routing).toBeNull();
  });

  it("streams through the v1 API with an Entra ID token, usage read from the chunk the caller did not ask for", async () => {
    azure.enqueue({ kind: "text", text: "one two three", usage: { input: 7, output: 3 } });
    const stream = await oa().chat.completions.create({
      model: "az-v1",
      messages: [{ role: "user", content: "count" }],
      stream: true,
    });
    let text = "";
    let usageSeen = false;
    let id = "";
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? "";
      if (chunk.usage) usageSeen = true;
      if (chunk.id) id = chunk.id;
    }
    expect(text).toBe("one two three");
    expect(usageSeen).toBe(false);
    const sent = azure.requests[0]!;
    expect(sent.path).toBe("/openai/v1/chat/completions");
    expect(sent.headers.authorization).toMatch(/^Bearer eyJ/);
    expect(sent.body).toMatchObject({
      model: "prod-4o",
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(id).toMatch(/^chatcmpl-/);
    const [row] = await (async () => {
      await recorder.flush();
      return app.db.select().from(sysAgentTurn).where(eq(sysAgentTurn.servedProvider, "azure-v1"));
    })();
    expect(row).toMatchObject({ status: "success", inputTokens: 7, outputTokens: 3 });
  });

  it("translates the Anthropic SDK's Messages call for an Azure deployment, and answers in Anthropic's shape", async () => {
    azure.enqueue({ kind: "text", text: "Bonjour.", usage: { input: 20, output: 2 } });
    const { data, response } = await an()
      .messages.create({
        model: "az-v1",
        max_tokens: 50,
        system: "Answer in French.",
        messages: [{ role: "user", content: "Hello" }],
      })
      .withResponse();
    expect(data.content).toEqual([{ type: "text", text: "Bonjour." }]);
    expect(data.usage).toMatchObject({ input_tokens: 20, output_tokens: 2 });
    expect(azure.requests[0]!.body).toMatchObject({
      model: "prod-4o",
      max_completion_tokens: 50,
      messages: [
        { role: "system", content: "Answer in French." },
        { role: "user", content: "Hello" },
      ],
    });
    expect((await rowOf(response.headers.get("x-request-id")!)).servedAdapter).toBe("azure-openai");
  });

  it("serves the Responses API from the v1 path and from a dated version's /openai/responses", async () => {
    azure.enqueue({ kind: "text", text: "via responses", usage: { input: 4, output: 2 } });
    const answer = await oa().responses.create({ model: "az-v1", input: "hi" });
    expect(answer.output_text).toBe("via responses");
    expect(azure.requests[0]!.path).toBe("/openai/v1/responses");
    azure.enqueue({ kind: "text", text: "dated responses" });
    expect((await oa().responses.create({ model: "az-4o", input: "hi" })).output_text).toBe(
      "dated responses",
    );
    expect(azure.requests[1]!.path).toBe("/openai/responses?api-version=2024-10-21");
  });

  it("answers a prompt Azure's filter refused with a 400, and puts the filter's verdict in the audit trail", async () => {
    azure.enqueue(azurePromptFiltered("violence", "high"));
    const error = await oa()
      .chat.completions.create({ model: "az-then-gpt", messages: [{ role: "user", content: "…" }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).message).toMatch(
      /content management policy/,
    );
    // The caller's own fault: not retried elsewhere.
    expect(openai.requests).toHaveLength(0);
    const id = (error as InstanceType<typeof OpenAI.BadRequestError>).requestID!;
    expect((await rowOf(id)).status).toBe("failed");
    const guardrail = (await auditOf(id)).find((e) => e.type === "guardrail");
    expect(guardrail?.payload).toMatchObject({
      code: "provider_content_filter",
      message: expect.stringContaining("prompt: violence (high)"),
    });
  });

  it("records an answer Azure's filter cut short as a guardrail event, the answer itself carried as it came", async () => {
    azure.enqueue(azureAnswerFiltered("gpt-4o-2024-11-20", "sexual", "medium"));
    const { data, response } = await oa()
      .chat.completions.create({ model: "az-4o", messages: [{ role: "user", content: "…" }] })
      .withResponse();
    expect(data.choices[0]!.finish_reason).toBe("content_filter");
    const events = await auditOf(response.headers.get("x-request-id")!);
    expect(events.find((e) => e.type === "guardrail")?.payload).toMatchObject({
      code: "provider_content_filter",
      message: "azure-dated's content filter filtered answer: sexual (medium).",
    });
  });
});
