import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { configFromEnvironment } from "@/lib/gateway/config";
import { PRICE_CATALOG } from "@/lib/gateway/pricing";
import { useSeededAppDatabase } from "../helpers/app-db";
import { testDbKinds } from "../helpers/db";
import { session } from "../helpers/session";
import { readSse } from "../helpers/sse";
import { postTurn as post } from "../helpers/turns";

vi.mock("@/lib/auth/session", () => import("../helpers/session"));

const stop = await import("@/app/api/agent/turns/[id]/stop/route");
const turn = await import("@/app/api/agent/turns/[id]/route");
const models = await import("@/app/api/agent/models/route");

describe.each(testDbKinds)("the turn endpoint on %s", (kind) => {
  let app: Awaited<ReturnType<typeof useSeededAppDatabase>>;
  beforeAll(async () => {
    app = await useSeededAppDatabase(kind);
  });
  afterAll(async () => {
    await app.close();
  });
  beforeEach(async () => {
    session.claims = { userId: await app.userId("member@acme.test"), tenantId: await app.tenantId("acme") };
    await app.rebuild({ gateway: configFromEnvironment({ OFFLINE_CHUNK_DELAY_MS: "0" }) });
  });

  it("streams a turn as server-sent events, creating the conversation first, and records it", async () => {
    const res = await post({ message: "what are my open orders?" });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const conversationId = res.headers.get("x-conversation-id");
    const frames = await readSse(res);
    expect(frames[0]).toMatchObject({ event: "turn", data: { conversationId } });
    expect(frames.map((f) => f.event)).toContain("tool_call");
    expect(frames.find((f) => f.event === "tool_result")?.data).toMatchObject({
      name: "query_orders",
      ok: true,
    });
    const done = frames.at(-1)!;
    expect(done).toMatchObject({
      event: "done",
      data: { summary: { status: "success", servedAdapter: "offline" } },
    });
    const turnId = (frames[0]!.data as { turnId: string }).turnId;
    const row = await turn.GET(new Request("http://app/x"), { params: Promise.resolve({ id: turnId }) });
    expect((await row.json()).turn).toMatchObject({ status: "success", conversationId, source: "drawer" });
  });

  it("Stop through the stop endpoint ends the turn as stopped, keeping the partial answer", async () => {
    await app.rebuild({ gateway: configFromEnvironment({ OFFLINE_CHUNK_DELAY_MS: "30" }) });
    let texts = 0;
    const res = await post({ message: "tell me a long story about nothing in particular" });
    const frames = await readSse(res, async (f) => {
      if (f.event === "text" && ++texts === 3) {
        const turnId = (await Promise.resolve(framesTurnId)) as string;
        const stopped = await stop.POST(new Request("http://app/x", { method: "POST" }), {
          params: Promise.resolve({ id: turnId }),
        });
        expect(stopped.status).toBe(202);
      }
      if (f.event === "turn") framesTurnId = (f.data as { turnId: string }).turnId;
    });
    expect(frames.at(-1)).toMatchObject({ event: "done", data: { summary: { status: "stopped" } } });
    expect(frames.filter((f) => f.event === "text").length).toBeLessThan(10);
  });

  it("refuses bad input and other people's conversations with clear errors", async () => {
    const empty = await post({ message: "   " });
    expect(empty.status).toBe(422);
    expect((await empty.json()).error.fields.message).toEqual(["the message must not be empty"]);
    expect((await post({ message: "hi", model: "gpt-9" })).status).toBe(422);
    const res = await post({ message: "mine" });
    const conversationId = res.headers.get("x-conversation-id");
    await readSse(res);
    session.claims = { userId: await app.userId("admin@acme.test"), tenantId: await app.tenantId("acme") };
    expect((await post({ conversationId, message: "let me in" })).status).toBe(404);
    const theirs = await stop.POST(new Request("http://app/x", { method: "POST" }), {
      params: Promise.resolve({ id: crypto.randomUUID() }),
    });
    expect(theirs.status).toBe(409);
  });

  it("treats model names on Object.prototype as unknown models, naming the real ones", async () => {
    for (const model of ["constructor", "__proto__", "toString", "hasOwnProperty"]) {
      const res = await post({ message: "hi", model });
      expect(res.status).toBe(422);
      const { error } = await res.json();
      expect(error.fields.model).toEqual([expect.stringContaining("offline-demo")]);
    }
  });

  it("lists the gateway's models, the offline demo model marked, and the date prices are as of", async () => {
    const body = await (
      await models.GET(new Request("http://app/x"), { params: Promise.resolve({}) })
    ).json();
    expect(body.models).toContainEqual(
      expect.objectContaining({ alias: "offline-demo", offline: true, supportsTools: true }),
    );
    expect(body.prices).toEqual({ ...PRICE_CATALOG, overrides: 0 });
  });
});

let framesTurnId: string | undefined;
