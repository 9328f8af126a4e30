import { count, eq } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { sysAgentSession, sysAgentTurn } from "@/db/schema";
import { parseGatewayConfig } from "@/lib/gateway/config";
import { startFakeAnthropic } from "../fakes/anthropic";
import type { FakeProvider } from "../fakes/http";
import { startFakeOpenAI } from "../fakes/openai";
import { useSeededAppDatabase } from "../helpers/app-db";
import { testDbKinds } from "../helpers/db";
import { PNG, text, uploadRequest } from "../helpers/files";
import { session } from "../helpers/session";
import { postTurn } from "../helpers/turns";

vi.mock("@/lib/auth/session", () => import("../helpers/session"));

const files = await import("@/app/api/agent/files/route");
const models = await import("@/app/api/agent/models/route");

const noParams = { params: Promise.resolve({}) };

let openai: FakeProvider;
let anthropic: FakeProvider;
let local: FakeProvider;
let localVision: FakeProvider;
beforeAll(async () => {
  [openai, anthropic, local, localVision] = await Promise.all([
    startFakeOpenAI(),
    startFakeAnthropic(),
    startFakeOpenAI(),
    startFakeOpenAI(),
  ]);
});
afterAll(async () => {
  await Promise.all([openai.close(), anthropic.close(), local.close(), localVision.close()]);
});

/** OpenAI and Anthropic (vision by default), and two OpenAI-compatible servers: one without vision, one that says it has it. */
function gatewayConfig() {
  return parseGatewayConfig(
    {
      providers: {
        openai: { type: "openai", baseUrl: openai.url },
        anthropic: { type: "anthropic", baseUrl: anthropic.url },
        local: { type: "openai-compatible", baseUrl: local.url },
        "local-vision": { type: "openai-compatible", baseUrl: localVision.url, supportsVision: true },
      },
      models: {
        gpt: { label: "GPT-4o", candidates: [{ provider: "openai", model: "gpt-4o" }] },
        claude: { candidates: [{ provider: "anthropic", model: "claude-sonnet-4-6" }] },
        llama: { label: "Local Llama", candidates: [{ provider: "local", model: "llama3" }] },
        llava: { candidates: [{ provider: "local-vision", model: "llava" }] },
      },
      defaultModel: "gpt",
      retry: { maxRetries: 0 },
    },
    "test",
    {},
  );
}

type WireMessage = { role: string; content: unknown };
const lastUser = (fake: FakeProvider) =>
  (fake.requests.at(-1)!.body.messages as WireMessage[]).filter((m) => m.role === "user").at(-1)!;

describe.each(testDbKinds)("images and files sent upstream on %s", (kind) => {
  let app: Awaited<ReturnType<typeof useSeededAppDatabase>>;
  let imageId: string;
  let notesId: string;
  beforeAll(async () => {
    app = await useSeededAppDatabase(kind);
    session.claims = { userId: await app.userId("member@acme.test"), tenantId: await app.tenantId("acme") };
    const upload = async (req: Request) =>
      ((await (await files.POST(req, noParams)).json()) as { id: string }).id;
    imageId = await upload(uploadRequest(PNG, "dot.png", "image/png"));
    notesId = await upload(uploadRequest(text("Ship on Friday."), "notes.txt"));
  });
  afterAll(async () => {
    await app.close();
  });
  beforeEach(async () => {
    for (const fake of [openai, anthropic, local, localVision]) fake.reset();
    await app.rebuild({ gateway: gatewayConfig() });
  });

  const base64 = Buffer.from(PNG).toString("base64");
  const send = async (model: string, attachments: string[]) => {
    const res = await postTurn({ message: "What is in this picture?", model, attachments });
    expect(res.status, await res.clone().text()).toBe(200);
    const raw = await res.text();
    expect(raw).toContain('"status":"success"');
  };

  it("sends an image to OpenAI as an image_url part (a data: URL) after the text", async () => {
    await send("gpt", [imageId]);
    expect(openai.requests).toHaveLength(1);
    expect(lastUser(openai).content).toEqual([
      { type: "text", text: "What is in this picture?" },
      { type: "image_url", image_url: { url: `data:image/png;base64,${base64}` } },
    ]);
  });

  it("sends an image to Anthropic as a base64 image block before the text", async () => {
    await send("claude", [imageId]);
    expect(anthropic.requests).toHaveLength(1);
    expect(lastUser(anthropic).content).toEqual([
      { type: "image", source: { type: "base64", media_type: "image/png", data: base64 } },
      { type: "text", text: "What is in this picture?" },
    ]);
  });

  it("sends a text file as an escaped block before the user's words; an OpenAI-compatible alias that says it has vision gets images too", async () => {
    await send("llava", [notesId, imageId]);
    const content = lastUser(localVision).content as { type: string; text?: string }[];
    expect(content[0]!.text).toMatch(
      /^The user attached the following reference material\.[\s\S]*<context kind="file" name="notes.txt" type="text\/plain">\nShip on Friday\.\n<\/context>\n\nWhat is in this picture\?$/,
    );
    expect(content[1]).toMatchObject({ type: "image_url" });
  });

  it("refuses an image for an alias without vision before any call: 400, nothing upstream, no ledger row, no conversation", async () => {
    const turnsBefore = (await app.db.select({ n: count() }).from(sysAgentTurn))[0]!.n;
    const conversationsBefore = (await app.db.select({ n: count() }).from(sysAgentSession))[0]!.n;
    const res = await postTurn({
      message: "What is in this picture?",
      model: "llama",
      attachments: [imageId],
    });
    expect(res.status).toBe(400);
    expect((await res.json()).error.message).toBe("Local Llama cannot read images; choose a model that can");
    expect(local.requests).toHaveLength(0);
    expect((await app.db.select({ n: count() }).from(sysAgentTurn))[0]!.n).toBe(turnsBefore);
    expect((await app.db.select({ n: count() }).from(sysAgentSession))[0]!.n).toBe(conversationsBefore);
    // Text files are fine for it.
    await send("llama", [notesId]);
    expect(local.requests).toHaveLength(1);
    expect(
      (
        await app.db.select({ n: count() }).from(sysAgentTurn).where(eq(sysAgentTurn.requestedModel, "llama"))
      )[0]!.n,
    ).toBe(1);
  });

  it("lists which aliases take images beside which take tools", async () => {
    const answer = await (await models.GET(new Request("http://app/api/agent/models"), noParams)).json();
    const vision = Object.fromEntries(
      (answer.models as { alias: string; supportsVision: boolean }[]).map((m) => [m.alias, m.supportsVision]),
    );
    expect(vision).toEqual({ gpt: true, claude: true, llama: false, llava: true });
  });
});
