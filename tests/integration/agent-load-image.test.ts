// load_image through the drawer's turn route, on both databases, against the fake OpenAI and Anthropic servers: the
// image a tool adds reaches a vision model as an image part of the next request (asserted on the body the fake
// received), a text-only alias is neither offered it nor served by it, another user's, conversation's or tenant's
// file is "not found", and what is stored and audited never holds the image's bytes.
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { sysAgentAudit, sysAgentMessage } from "@/db/schema";
import { parseGatewayConfig } from "@/lib/gateway/config";
import { listConversations } from "@/lib/governance/conversations";
import { startFakeAnthropic } from "../fakes/anthropic";
import type { FakeProvider } from "../fakes/http";
import { startFakeOpenAI } from "../fakes/openai";
import { useSeededAppDatabase } from "../helpers/app-db";
import { testDbKinds } from "../helpers/db";
import { PNG, text, uploadRequest } from "../helpers/files";
import { session } from "../helpers/session";
import { readSse } from "../helpers/sse";
import { postTurn } from "../helpers/turns";

vi.mock("@/lib/auth/session", () => import("../helpers/session"));

const files = await import("@/app/api/agent/files/route");
const noParams = { params: Promise.resolve({}) };

let openai: FakeProvider;
let anthropic: FakeProvider;
let local: FakeProvider;
beforeAll(async () => {
  [openai, anthropic, local] = await Promise.all([
    startFakeOpenAI(),
    startFakeAnthropic(),
    startFakeOpenAI(),
  ]);
});
afterAll(async () => {
  await Promise.all([openai.close(), anthropic.close(), local.close()]);
});

/** OpenAI and Anthropic read images; the OpenAI-compatible "llama" does not. */
function gatewayConfig() {
  return parseGatewayConfig(
    {
      providers: {
        openai: { type: "openai", baseUrl: openai.url },
        anthropic: { type: "anthropic", baseUrl: anthropic.url },
        local: { type: "openai-compatible", baseUrl: local.url },
      },
      models: {
        gpt: { label: "GPT-4o", candidates: [{ provider: "openai", model: "gpt-4o" }] },
        claude: { candidates: [{ provider: "anthropic", model: "claude-sonnet-4-6" }] },
        llama: { label: "Local Llama", candidates: [{ provider: "local", model: "llama3" }] },
      },
      defaultModel: "gpt",
      retry: { maxRetries: 0 },
    },
    "test",
    {},
  );
}

type WireMessage = { role: string; content: unknown; tool_calls?: unknown[]; tool_call_id?: string };
const wire = (fake: FakeProvider, n: number) => fake.requests[n]!.body.messages as WireMessage[];
const offered = (fake: FakeProvider, n: number) =>
  ((fake.requests[n]!.body.tools as { name?: string; function?: { name: string } }[] | undefined) ?? []).map(
    (t) => t.function?.name ?? t.name,
  );
const base64 = Buffer.from(PNG).toString("base64");

describe.each(testDbKinds)("load_image on %s", (kind) => {
  let app: Awaited<ReturnType<typeof useSeededAppDatabase>>;
  let member: { userId: string; tenantId: string };
  beforeAll(async () => {
    app = await useSeededAppDatabase(kind);
    member = { userId: await app.userId("member@acme.test"), tenantId: await app.tenantId("acme") };
  });
  afterAll(async () => {
    await app.close();
  });
  beforeEach(async () => {
    session.claims = member;
    await app.rebuild({ gateway: gatewayConfig() });
  });

  const upload = async (bytes: Uint8Array, name: string, type?: string) =>
    ((await (await files.POST(uploadRequest(bytes, name, type), noParams)).json()) as { id: string }).id;

  /** A turn to its end: the conversation it ran in and its events. */
  const send = async (body: Record<string, unknown>) => {
    const res = await postTurn(body);
    expect(res.status, await res.clone().text()).toBe(200);
    const conversationId = res.headers.get("x-conversation-id")!;
    const frames = await readSse(res);
    return { conversationId, frames };
  };

  /** A conversation in which the member sent `fileId` (so it is this conversation's file), on `model`. */
  const conversationWith = async (fileId: string, model = "gpt") => {
    const { conversationId } = await send({ message: "Here is a picture.", model, attachments: [fileId] });
    for (const fake of [openai, anthropic, local]) fake.reset();
    return conversationId;
  };

  const loadImage = (fake: FakeProvider, fileId: string) =>
    fake.enqueue(
      { kind: "tool_calls", calls: [{ id: "call_load", name: "load_image", args: { file_id: fileId } }] },
      { kind: "text", text: "A single dot." },
    );

  it("sends the conversation's image to OpenAI as an image_url part right after the tool's result, stores and audits it without its bytes", async () => {
    const imageId = await upload(PNG, "dot.png", "image/png");
    const conversationId = await conversationWith(imageId);
    loadImage(openai, imageId);
    const { frames } = await send({ conversationId, message: "Look at it again, closely.", model: "gpt" });

    expect(offered(openai, 0)).toContain("load_image");
    // The earlier message's image is not sent again; the model is told its file id, to load it if it needs to.
    expect(wire(openai, 0).find((m) => m.role === "user")!.content).toBe(
      `Here is a picture.\n\n[Images attached to this message, not shown again: "dot.png" (file_id ${imageId})]`,
    );
    const messages = wire(openai, 1);
    const call = messages.findIndex((m) => m.role === "assistant" && m.tool_calls?.length);
    expect(messages.slice(call + 1).map((m) => m.role)).toEqual(["tool", "user"]);
    expect(JSON.parse(messages[call + 1]!.content as string)).toMatchObject({
      loaded: true,
      type: "image/png",
      name: "dot.png",
      fileId: imageId,
    });
    expect(messages[call + 2]!.content).toEqual([
      {
        type: "text",
        text: expect.stringContaining(
          `[load_image] The image below is the file ${imageId} of this conversation.`,
        ),
      },
      { type: "image_url", image_url: { url: `data:image/png;base64,${base64}` } },
    ]);

    // The drawer hears of it with the result; the message is stored after the result, its image described.
    const result = frames.find((f) => f.event === "tool_result")!;
    expect(result.data.message).toMatchObject({
      images: [{ type: "image/png", size: PNG.byteLength, name: "dot.png", fileId: imageId }],
    });
    const rows = await app.db
      .select()
      .from(sysAgentMessage)
      .where(
        and(eq(sysAgentMessage.tenantId, member.tenantId), eq(sysAgentMessage.sessionId, conversationId)),
      );
    const added = rows.find((r) => r.parts.kind === "tool_message")!;
    expect(added.role).toBe("user");
    expect(added.parts.data).toEqual({
      toolCallId: "call_load",
      tool: "load_image",
      images: [{ type: "image/png", size: PNG.byteLength, name: "dot.png", fileId: imageId }],
    });
    expect(JSON.stringify(rows.map((r) => r.parts))).not.toContain(base64);
    const turnId = frames.find((f) => f.event === "turn")!.data.turnId as string;
    const audit = await app.db.select().from(sysAgentAudit).where(eq(sysAgentAudit.turnId, turnId));
    const audited = audit.find((a) => a.type === "tool_result")!;
    expect(audited.payload.message).toMatchObject({ images: [{ type: "image/png", fileId: imageId }] });
    expect(JSON.stringify(audit.map((a) => a.payload))).not.toContain(base64);

    // The conversation search looks at what people see: the user's words and the answers, not a tool's message.
    const found = await listConversations(app.db, { ...member, search: "data to look at" });
    expect(found.map((c) => c.id)).not.toContain(conversationId);
    expect((await listConversations(app.db, { ...member, search: "closely" })).map((c) => c.id)).toContain(
      conversationId,
    );

    // A later turn's history has the message as text (images of earlier turns are not sent again).
    await send({ conversationId, message: "And now?", model: "gpt" });
    const later = wire(openai, 2);
    expect(later.filter((m) => m.role === "user").map((m) => m.content)).toContainEqual(
      expect.stringMatching(/^\[load_image\] The image below is the file/),
    );
    expect(JSON.stringify(later)).not.toContain(base64);
  });

  it("a regenerate after load_image asks again with the user's words, not the tool's message, which it supersedes", async () => {
    const imageId = await upload(PNG, "dot.png", "image/png");
    const conversationId = await conversationWith(imageId);
    loadImage(openai, imageId);
    await send({ conversationId, message: "Look at it again, closely.", model: "gpt" });
    openai.reset();
    await send({ conversationId, regenerate: true, model: "gpt" });
    const again = wire(openai, 0);
    expect(again.at(-1)).toMatchObject({ role: "user", content: "Look at it again, closely." });
    expect(JSON.stringify(again)).not.toContain("[load_image]");
  });

  it("sends it to Anthropic as an image block in the user turn of the tool results, after them", async () => {
    const imageId = await upload(PNG, "dot.png", "image/png");
    const conversationId = await conversationWith(imageId, "claude");
    loadImage(anthropic, imageId);
    await send({ conversationId, message: "Look again.", model: "claude" });
    const messages = wire(anthropic, 1);
    const last = messages.at(-1)!;
    expect(last.role).toBe("user");
    const blocks = last.content as { type: string; source?: unknown; tool_use_id?: string; text?: string }[];
    expect(blocks.map((b) => b.type)).toEqual(["tool_result", "image", "text"]);
    expect(blocks[0]!.tool_use_id).toBe("call_load");
    expect(blocks[1]!.source).toEqual({ type: "base64", media_type: "image/png", data: base64 });
    expect(blocks[2]!.text).toMatch(/^\[load_image\] The image below is the file/);
  });

  it("is not offered to a text-only alias, and a call of it anyway is refused naming the alias", async () => {
    const notesId = await upload(text("Ship on Friday."), "notes.txt");
    const conversationId = await conversationWith(notesId, "llama");
    loadImage(local, notesId);
    const { frames } = await send({ conversationId, message: "Show me the picture.", model: "llama" });
    expect(offered(local, 0)).not.toContain("load_image");
    expect(offered(local, 0).length).toBeGreaterThan(0);
    const result = frames.find((f) => f.event === "tool_result")!;
    expect(result.data).toMatchObject({ name: "load_image", ok: false });
    expect(JSON.parse(result.data.result as string).error).toBe(
      'load_image is refused: the model alias "llama" (Local Llama) cannot read images; choose an alias that can',
    );
    expect(JSON.stringify(wire(local, 1))).not.toContain("image_url");
  });

  it("answers 'not found' for another conversation's, another user's and another tenant's image, and a file that is not an image", async () => {
    // The member's image, sent in another conversation of theirs.
    const elsewhere = await upload(PNG, "elsewhere.png", "image/png");
    await conversationWith(elsewhere);
    // The admin's image in the same tenant, and a Globex member's, each sent in a conversation of their own.
    session.claims = { userId: await app.userId("admin@acme.test"), tenantId: member.tenantId };
    const admins = await upload(PNG, "admins.png", "image/png");
    await conversationWith(admins);
    session.claims = {
      userId: await app.userId("member@globex.test"),
      tenantId: await app.tenantId("globex"),
    };
    const globex = await upload(PNG, "globex.png", "image/png");
    await conversationWith(globex);
    // Never sent anywhere: uploaded, not attached.
    session.claims = member;
    const unsent = await upload(PNG, "unsent.png", "image/png");
    const notesId = await upload(text("Ship on Friday."), "notes.txt");
    const conversationId = await conversationWith(notesId);

    for (const id of [elsewhere, admins, globex, unsent, "not-a-uuid"]) {
      openai.reset();
      loadImage(openai, id);
      const { frames } = await send({ conversationId, message: "Look at that picture.", model: "gpt" });
      const result = frames.find((f) => f.event === "tool_result")!;
      expect(JSON.parse(result.data.result as string).error, id).toBe(
        `file ${id} not found in this conversation`,
      );
      expect(JSON.stringify(wire(openai, 1))).not.toContain(base64);
    }
    openai.reset();
    loadImage(openai, notesId);
    const { frames } = await send({
      conversationId,
      message: "Look at the notes as an image.",
      model: "gpt",
    });
    expect(JSON.parse(frames.find((f) => f.event === "tool_result")!.data.result as string).error).toBe(
      `file ${notesId} (notes.txt) is text/plain, not an image`,
    );
  });
});
