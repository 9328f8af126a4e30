// The lean server relays a stream as it comes: the caller holds the first chunk while the provider is still
// writing the rest, and the call is still one ledger row with the provider's usage once the stream ends, or
// when the caller leaves in the middle.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { eq } from "drizzle-orm";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sysAgentTurn } from "@/db/schema";
import { createApiKey } from "@/features/keys/server/keys";
import { parseGatewayConfig } from "@/lib/gateway/config";
import { Gateway } from "@/lib/gateway/gateway";
import type { BatchedGovernanceRecorder } from "@/lib/governance/batched-recorder";
import { useSeededAppDatabase } from "../helpers/app-db";
import { startLeanApi } from "../helpers/lean-api";

/** A provider that sends its first chunk at once and the rest only when the test says so. */
function heldStreamUpstream() {
  const state = { sentFirst: false, finished: false, release: () => {}, requests: 0 };
  const chunk = (delta: object, finish: string | null = null) =>
    `data: ${JSON.stringify({ id: "chatcmpl-held", object: "chat.completion.chunk", created: 1, model: "gpt-4o-mini-2024-07-18", choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] })}\n\n`;
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      state.requests += 1;
      const held = new Promise<void>((resolve) => {
        state.release = resolve;
      });
      state.finished = false;
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(chunk({ role: "assistant", content: "first" }));
      state.sentFirst = true;
      void held.then(() => {
        if (res.destroyed) return;
        res.write(chunk({ content: " and the rest" }));
        res.write(chunk({}, "stop"));
        res.write(
          `data: ${JSON.stringify({ id: "chatcmpl-held", object: "chat.completion.chunk", created: 1, model: "gpt-4o-mini-2024-07-18", choices: [], usage: { prompt_tokens: 9, completion_tokens: 4, total_tokens: 13 } })}\n\n`,
        );
        res.end("data: [DONE]\n\n");
        state.finished = true;
      });
    });
  });
  return { server, state };
}

describe("the lean server's streams", () => {
  let app: Awaited<ReturnType<typeof useSeededAppDatabase>>;
  const upstream = heldStreamUpstream();
  let closeApi: () => Promise<void>;
  let recorder: BatchedGovernanceRecorder;
  let client: OpenAI;
  let root: string;
  let secret: string;

  beforeAll(async () => {
    app = await useSeededAppDatabase("pglite");
    await new Promise<void>((resolve) => upstream.server.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(upstream.server.address() as AddressInfo).port}/v1`;
    const gateway = new Gateway(
      parseGatewayConfig(
        {
          providers: { up: { type: "openai", baseUrl: url } },
          models: { gpt: { candidates: [{ provider: "up", model: "gpt-4o-mini" }] } },
          retry: { maxRetries: 0 },
        },
        "test",
        {},
      ),
    );
    const api = await startLeanApi(app.db, gateway);
    ({ recorder, root } = api);
    closeApi = api.close;
    ({ secret } = await createApiKey(app.db, {
      tenantId: await app.tenantId("acme"),
      name: "streams",
      createdBy: await app.userId("admin@acme.test"),
    }));
    client = new OpenAI({ apiKey: secret, baseURL: `${root}/v1`, maxRetries: 0 });
  });
  afterAll(async () => {
    await closeApi();
    upstream.server.closeAllConnections();
    await new Promise((resolve) => upstream.server.close(resolve));
    await app.close();
  });

  const rowOf = async (id: string) => {
    await recorder.flush();
    const [row] = await app.db.select().from(sysAgentTurn).where(eq(sysAgentTurn.id, id));
    return row;
  };

  it("hands the caller the first chunk while the provider is still streaming, then the rest and one ledger row", async () => {
    const { data: stream, response } = await client.chat.completions
      .create({ model: "gpt", stream: true, messages: [{ role: "user", content: "Hi" }] })
      .withResponse();
    const chunks = stream[Symbol.asyncIterator]();
    const first = await chunks.next();
    expect(first.value?.choices[0]?.delta.content).toBe("first");
    // The provider has sent one chunk and holds the rest: the caller already has it.
    expect(upstream.state.sentFirst).toBe(true);
    expect(upstream.state.finished).toBe(false);
    upstream.state.release();
    let text = first.value?.choices[0]?.delta.content ?? "";
    for (let r = await chunks.next(); !r.done; r = await chunks.next())
      text += r.value.choices[0]?.delta.content ?? "";
    expect(text).toBe("first and the rest");
    expect(upstream.state.finished).toBe(true);
    const row = await rowOf(response.headers.get("x-request-id")!);
    expect(row).toMatchObject({ status: "success", inputTokens: 9, outputTokens: 4, source: "api" });
  });

  it("records a call whose caller leaves mid-stream as stopped, once", async () => {
    const controller = new AbortController();
    const res = await fetch(`${root}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "gpt", stream: true, messages: [{ role: "user", content: "Hi" }] }),
      signal: controller.signal,
    });
    const id = res.headers.get("x-request-id")!;
    await res.body!.getReader().read();
    controller.abort();
    await expect.poll(async () => (await rowOf(id))?.status, { timeout: 5_000 }).toBe("stopped");
    upstream.state.release();
    await recorder.flush();
    const rows = await app.db.select().from(sysAgentTurn).where(eq(sysAgentTurn.id, id));
    expect(rows).toHaveLength(1);
  });
});
