// Messages tools add for the model (ToolContext.addMessage) in the tool loop, on a scripted model: where they go in
// the next request, the loop's rules with them in play (order, the 8,000-character cut, Stop's backfill), what is
// refused as the call's error result, and what is stored and audited.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { ConversationFiles } from "@/lib/agent/conversation-files";
import { ToolRegistry } from "@/lib/agent/registry";
import { AgentService } from "@/lib/agent/service";
import { defineTool, StaticToolSet, type Tool, type ToolContext } from "@/lib/agent/tool";
import { TOOL_MESSAGE_MAX_BYTES } from "@/lib/agent/tool-messages";
import { visionToolSet } from "@/lib/agent/toolsets/vision";
import { parseGatewayConfig } from "@/lib/gateway/config";
import { Gateway } from "@/lib/gateway/gateway";
import type { ChatMessage } from "@/lib/gateway/types";
import { auditColumns, auditOf } from "@/lib/governance/recorder";
import { CANCELLED, InMemoryConversationStore } from "@/lib/turns/conversation";
import type { AgentEvent, TurnEvent } from "@/lib/turns/events";
import type { TurnStart } from "@/lib/turns/observer";
import { call, ScriptedModel, type Step } from "../fakes/scripted-model";
import { GIF, PNG } from "../helpers/files";

const ctx = { tenantId: "t1", userId: "u1", role: "member" as const, conversationId: "c1" };
const pngUrl = `data:image/png;base64,${Buffer.from(PNG).toString("base64")}`;

/** One scripted model behind two aliases: "seeing" reads images, "blind" (Blind Model) does not. */
function gatewayFor(model: ScriptedModel): Gateway {
  const config = parseGatewayConfig(
    {
      providers: {
        eyes: { type: "openai-compatible", baseUrl: "http://127.0.0.1:9/unused", supportsVision: true },
        text: { type: "openai-compatible", baseUrl: "http://127.0.0.1:9/unused" },
      },
      models: {
        seeing: { label: "Seeing", candidates: [{ provider: "eyes", model: "eyes-1" }] },
        blind: { label: "Blind Model", candidates: [{ provider: "text", model: "text-1" }] },
      },
      prices: { "eyes-1": { input: "1", output: "2" }, "text-1": { input: "1", output: "2" } },
      retry: { maxRetries: 0 },
    },
    "seeing",
    {},
  );
  return new Gateway(config, { adapters: { eyes: model, text: model } });
}

/** The files of conversation c1 by user u1 in tenant t1: one PNG and one text file. */
const files: ConversationFiles = {
  async find(owner, id) {
    if (owner.tenantId !== "t1" || owner.userId !== "u1" || owner.conversationId !== "c1") return null;
    if (id === "png-1") return { id, name: "dot.png", mediaType: "image/png", bytes: Buffer.from(PNG) };
    if (id === "notes-1") return { id, name: "notes.txt", mediaType: "text/plain", bytes: Buffer.from("hi") };
    return null;
  },
};

function agentWith(steps: Step[], tools: Tool[], extraSets: StaticToolSet[] = []) {
  const model = new ScriptedModel(steps);
  const registry = new ToolRegistry().register(new StaticToolSet("test", tools));
  for (const set of extraSets) registry.register(set);
  const store = new InMemoryConversationStore();
  const observed: TurnEvent[] = [];
  const agent = new AgentService({
    gateway: gatewayFor(model),
    registry,
    store,
    files,
    observer: {
      start: async () => {},
      event: (_turnId, event) => {
        observed.push(event);
      },
      end: async () => {},
    },
  });
  return { model, store, agent, observed };
}

async function turn(agent: AgentService, model = "seeing", signal = new AbortController().signal) {
  const events: AgentEvent[] = [];
  for await (const e of agent.send(ctx, { message: "look", model }, signal)) events.push(e);
  const done = events.at(-1) as Extract<AgentEvent, { type: "done" }>;
  expect(done.type).toBe("done");
  return { events, summary: done.summary };
}

/** A tool that adds the message it is given (and answers "added"). */
const adder = (name = "adder", message: unknown = { role: "user", parts: [{ type: "text", text: "hi" }] }) =>
  defineTool({
    name,
    description: "Adds a message",
    parameters: z.object({}),
    execute: async (_args, tctx) => {
      await tctx.addMessage(message as Parameters<ToolContext["addMessage"]>[0]);
      return "added";
    },
  });

const imageMessage = (text: string) => ({
  role: "user",
  parts: [
    { type: "text", text },
    { type: "image", url: pngUrl, name: "dot.png" },
  ],
});

/** What the model read after the round's assistant message: roles, with tool results as `tool:<id>`. */
const fromCalls = (messages: ChatMessage[]) => {
  const start = messages.findIndex((m) => m.role === "assistant" && m.toolCalls?.length);
  return messages.slice(start).map((m) => (m.role === "tool" ? `tool:${m.toolCallId}` : m.role));
};
const toolResult = (messages: ChatMessage[], id: string) =>
  messages.find((m): m is Extract<ChatMessage, { role: "tool" }> => m.role === "tool" && m.toolCallId === id)!
    .content;
const lastUser = (messages: ChatMessage[]) =>
  messages.filter((m): m is Extract<ChatMessage, { role: "user" }> => m.role === "user").at(-1)!;

describe("a message a tool adds", () => {
  it("reaches the next request after the round's results, with its image as an image part, and every later round of the turn", async () => {
    const { model, agent } = agentWith(
      [
        { toolCalls: [call("adder", {}, "a1")] },
        { toolCalls: [call("noop", {}, "n1")] },
        { text: "A red dot." },
      ],
      [
        adder("adder", imageMessage("Here is the picture.")),
        defineTool({ name: "noop", description: "", parameters: z.object({}), execute: async () => "ok" }),
      ],
    );
    const { summary, events } = await turn(agent);
    expect(summary.status).toBe("success");
    const second = model.requests[1]!.messages;
    expect(fromCalls(second)).toEqual(["assistant", "tool:a1", "user"]);
    expect(lastUser(second)).toEqual({
      role: "user",
      content: "Here is the picture.",
      images: [{ mediaType: "image/png", data: Buffer.from(PNG).toString("base64") }],
    });
    // The third request still carries it (this turn's rounds), in its place after a1's result.
    const third = model.requests[2]!.messages;
    expect(fromCalls(third)).toEqual(["assistant", "tool:a1", "user", "assistant", "tool:n1"]);
    expect(third.some((m) => m.role === "user" && m.images?.length)).toBe(true);
    // The drawer hears of it with the call's result: its text and the image described, never its bytes.
    const result = events.find((e) => e.type === "tool_result" && e.callId === "a1");
    expect(result).toMatchObject({
      ok: true,
      message: {
        text: "Here is the picture.",
        images: [{ type: "image/png", size: PNG.byteLength, name: "dot.png" }],
      },
    });
    expect(JSON.stringify(result)).not.toContain(Buffer.from(PNG).toString("base64"));
  });

  it("is stored after the results without its bytes, so a later turn's history has its text (not its image)", async () => {
    const { model, agent, store } = agentWith(
      [{ toolCalls: [call("adder", {}, "a1")] }, { text: "Seen." }, { text: "Still a dot." }],
      [adder("adder", imageMessage("Here is the picture."))],
    );
    await turn(agent);
    const stored = await store.history("t1", "c1");
    expect(stored.map((m) => m.kind ?? m.role)).toEqual([
      "user",
      "assistant",
      "tool",
      "tool_message",
      "assistant",
    ]);
    const added = stored[3]!;
    expect(added).toEqual({
      role: "user",
      content: "Here is the picture.",
      kind: "tool_message",
      data: {
        toolCallId: "a1",
        tool: "adder",
        images: [{ type: "image/png", size: PNG.byteLength, name: "dot.png" }],
      },
    });
    await turn(agent);
    const later = model.requests[2]!.messages;
    expect(later).toContainEqual({ role: "user", content: "Here is the picture." });
    expect(later.some((m) => m.role === "user" && m.images?.length)).toBe(false);
  });

  it("keeps results in call order and cuts a big one at 8,000 characters, with the added messages after all of them in call order", async () => {
    const slow = (name: string, ms: number, text: string) =>
      defineTool({
        name,
        description: "",
        parameters: z.object({}),
        execute: async (_a, tctx) => {
          await new Promise((r) => setTimeout(r, ms));
          await tctx.addMessage({ role: "user", parts: [{ type: "text", text }] });
          return text;
        },
      });
    const big = defineTool({
      name: "big",
      description: "",
      parameters: z.object({}),
      execute: async () => "x".repeat(10_500),
    });
    const { model, agent } = agentWith(
      [
        { toolCalls: [call("first", {}, "c0"), call("big", {}, "c1"), call("second", {}, "c2")] },
        { text: "ok" },
      ],
      [slow("first", 60, "from the first"), big, slow("second", 5, "from the second")],
    );
    const { events } = await turn(agent);
    const next = model.requests[1]!.messages;
    expect(fromCalls(next)).toEqual(["assistant", "tool:c0", "tool:c1", "tool:c2", "user", "user"]);
    expect(toolResult(next, "c1")).toMatch(/^x{8000}\n…\[truncated: 2500 more characters\]$/);
    expect(next.slice(-2)).toEqual([
      { role: "user", content: "from the first" },
      { role: "user", content: "from the second" },
    ]);
    // The second finished first: events follow the finish order, messages the call order.
    const finished = events.flatMap((e) => (e.type === "tool_result" ? [e.callId] : []));
    expect(finished.indexOf("c2")).toBeLessThan(finished.indexOf("c0"));
  });

  it("on Stop: the finished call's message is kept after the results, the cancelled call gets its backfilled result", async () => {
    const waits = defineTool({
      name: "waits",
      description: "Waits for Stop",
      parameters: z.object({}),
      execute: (_a, tctx) =>
        new Promise((_, reject) => tctx.signal.addEventListener("abort", () => reject(new Error("aborted")))),
    });
    const { agent, store, model } = agentWith(
      [
        { text: "Let me look.", toolCalls: [call("adder", {}, "a1"), call("waits", {}, "w1")] },
        { text: "Next." },
      ],
      [adder("adder", imageMessage("Loaded.")), waits],
    );
    const controller = new AbortController();
    const events: AgentEvent[] = [];
    for await (const e of agent.send(ctx, { message: "look", model: "seeing" }, controller.signal)) {
      events.push(e);
      if (e.type === "tool_result" && e.callId === "a1") setTimeout(() => controller.abort(), 10);
    }
    expect((events.at(-1) as Extract<AgentEvent, { type: "done" }>).summary.status).toBe("stopped");
    const stored = await store.history("t1", "c1");
    expect(stored.map((m) => (m.role === "tool" ? `tool:${m.toolCallId}` : (m.kind ?? m.role)))).toEqual([
      "user",
      "assistant",
      "tool:a1",
      "tool:w1",
      "tool_message",
    ]);
    expect(stored[3]).toMatchObject({ content: CANCELLED });
    expect(stored[4]).not.toHaveProperty("images");
    // The next turn's history is one providers accept: results right after their calls, then the messages.
    await turn(agent);
    expect(fromCalls(model.requests[1]!.messages)).toEqual([
      "assistant",
      "tool:a1",
      "tool:w1",
      "user",
      "user",
    ]);
  });

  it("is dropped when its call fails afterwards or times out: the model reads only the error", async () => {
    const thenFails = defineTool({
      name: "then_fails",
      description: "",
      parameters: z.object({}),
      execute: async (_a, tctx) => {
        await tctx.addMessage({ role: "user", parts: [{ type: "text", text: "never seen" }] });
        throw new Error("broke after adding");
      },
    });
    const thenHangs = defineTool({
      name: "then_hangs",
      description: "",
      timeoutMs: 50,
      parameters: z.object({}),
      execute: async (_a, tctx) => {
        await tctx.addMessage({ role: "user", parts: [{ type: "text", text: "never seen either" }] });
        return new Promise(() => {});
      },
    });
    const { model, agent, store } = agentWith(
      [{ toolCalls: [call("then_fails", {}, "f1"), call("then_hangs", {}, "h1")] }, { text: "ok" }],
      [thenFails, thenHangs],
    );
    const { events } = await turn(agent);
    const next = model.requests[1]!.messages;
    expect(fromCalls(next)).toEqual(["assistant", "tool:f1", "tool:h1"]);
    expect(toolResult(next, "f1")).toBe('{"error":"broke after adding"}');
    expect(toolResult(next, "h1")).toBe('{"error":"then_hangs timed out after 50 ms"}');
    expect(JSON.stringify(await store.history("t1", "c1"))).not.toContain("never seen");
    expect(events.some((e) => e.type === "tool_result" && e.message)).toBe(false);
  });
});

describe("a message that cannot be added is the call's error result, and the turn goes on", () => {
  const big = Buffer.concat([Buffer.from(PNG), Buffer.alloc(TOOL_MESSAGE_MAX_BYTES)]);
  const cases: [string, unknown, RegExp][] = [
    [
      "an image over 5 MB",
      { role: "user", parts: [{ type: "image", url: `data:image/png;base64,${big.toString("base64")}` }] },
      /image 1 is 5,242,950 bytes; an image may be at most 5 MB/,
    ],
    [
      "images over 5 MB together",
      {
        role: "user",
        parts: [1, 2, 3, 4].map(() => ({
          type: "image",
          url: `data:image/png;base64,${big.subarray(0, 1_500_000).toString("base64")}`,
        })),
      },
      /more than 5 MB together/,
    ],
    [
      "a non-image data URL",
      { role: "user", parts: [{ type: "image", url: "data:text/plain;base64,aGVsbG8=" }] },
      /image 1 is not a base64 data URL of an image/,
    ],
    [
      "an SVG",
      { role: "user", parts: [{ type: "image", url: "data:image/svg+xml;base64,PHN2Zy8+" }] },
      /image 1 is image\/svg\+xml; only PNG, JPEG, GIF and WebP/,
    ],
    [
      "bytes that are not the type they say",
      {
        role: "user",
        parts: [{ type: "image", url: `data:image/jpeg;base64,${Buffer.from(GIF).toString("base64")}` }],
      },
      /image 1 says image\/jpeg but its bytes are image\/gif/,
    ],
    [
      "five images",
      { role: "user", parts: [1, 2, 3, 4, 5].map(() => ({ type: "image", url: pngUrl })) },
      /at most 4 images \(this one has 5\)/,
    ],
    [
      "text over 8,000 characters",
      { role: "user", parts: [{ type: "text", text: "y".repeat(8_001) }] },
      /text is 8001 characters; at most 8000/,
    ],
    [
      "an assistant message",
      { role: "assistant", parts: [{ type: "text", text: "I said so" }] },
      /addMessage: role: Invalid input: expected "user"/,
    ],
    ["no parts", { role: "user", parts: [] }, /a message needs at least one part/],
    [
      "a file of the conversation that is not an image",
      { role: "user", parts: [{ type: "image", fileId: "notes-1" }] },
      /file notes-1 \(notes\.txt\) is text\/plain, not an image/,
    ],
    [
      "a file that is not this conversation's",
      { role: "user", parts: [{ type: "image", fileId: "someone-elses" }] },
      /file someone-elses not found in this conversation/,
    ],
  ];
  for (const [what, message, error] of cases) {
    it(`refuses ${what}`, async () => {
      const { model, agent, store } = agentWith(
        [{ toolCalls: [call("adder", {}, "a1")] }, { text: "ok" }],
        [adder("adder", message)],
      );
      const { summary } = await turn(agent);
      expect(summary.status).toBe("success");
      const next = model.requests[1]!.messages;
      expect(fromCalls(next)).toEqual(["assistant", "tool:a1"]);
      expect(JSON.parse(toolResult(next, "a1")).error).toMatch(error);
      expect((await store.history("t1", "c1")).some((m) => m.kind === "tool_message")).toBe(false);
    });
  }

  it("refuses a second message from one call, and takes a smaller one after a refused one", async () => {
    const twice = defineTool({
      name: "twice",
      description: "",
      parameters: z.object({}),
      execute: async (_a, tctx) => {
        await tctx
          .addMessage({ role: "user", parts: [{ type: "text", text: "y".repeat(9_000) }] })
          .catch(() => null);
        await tctx.addMessage({ role: "user", parts: [{ type: "text", text: "short" }] });
        await tctx.addMessage({ role: "user", parts: [{ type: "text", text: "again" }] });
        return "done";
      },
    });
    const { model, agent } = agentWith([{ toolCalls: [call("twice", {}, "t1")] }, { text: "ok" }], [twice]);
    await turn(agent);
    expect(toolResult(model.requests[1]!.messages, "t1")).toBe(
      '{"error":"addMessage: a tool call may add one message"}',
    );
  });

  it("refuses images beyond 8 in one turn", async () => {
    const four = { role: "user", parts: [1, 2, 3, 4].map(() => ({ type: "image", url: pngUrl })) };
    const { model, agent } = agentWith(
      [{ toolCalls: [call("a", {}, "x1"), call("b", {}, "x2"), call("c", {}, "x3")] }, { text: "ok" }],
      [adder("a", four), adder("b", four), adder("c", four)],
    );
    await turn(agent);
    const next = model.requests[1]!.messages;
    expect(next.filter((m) => m.role === "user" && m.images?.length === 4)).toHaveLength(2);
    expect(JSON.parse(toolResult(next, "x3")).error).toMatch(/already carries 8 added images; at most 8/);
  });
});

describe("models that cannot read images", () => {
  it("get a tool's text-only message, but an image is refused naming the alias", async () => {
    const { model, agent } = agentWith(
      [{ toolCalls: [call("texter", {}, "t1"), call("imager", {}, "i1")] }, { text: "ok" }],
      [adder("texter"), adder("imager", imageMessage("pic"))],
    );
    await turn(agent, "blind");
    const next = model.requests[1]!.messages;
    expect(fromCalls(next)).toEqual(["assistant", "tool:t1", "tool:i1", "user"]);
    expect(lastUser(next)).toEqual({ role: "user", content: "hi" });
    expect(JSON.parse(toolResult(next, "i1")).error).toBe(
      'addMessage: the model alias "blind" (Blind Model) cannot read images; choose an alias that can',
    );
  });

  it("are not offered load_image, and a call of it anyway is refused naming the alias", async () => {
    const { model, agent } = agentWith(
      [{ toolCalls: [call("load_image", { file_id: "png-1" }, "l1")] }, { text: "ok" }],
      [],
      [visionToolSet()],
    );
    const { summary } = await turn(agent, "blind");
    expect(model.requests[0]!.tools?.map((t) => t.name) ?? []).not.toContain("load_image");
    expect(toolResult(model.requests[1]!.messages, "l1")).toBe(
      '{"error":"load_image is refused: the model alias \\"blind\\" (Blind Model) cannot read images; choose an alias that can"}',
    );
    expect(summary.toolTrace[0]).toMatchObject({ name: "load_image", ok: false, error: "needs vision" });
  });

  it("the offline demo model, which takes images but cannot see them, is not offered load_image", async () => {
    const config = parseGatewayConfig(
      {
        providers: { offline: { type: "offline", chunkDelayMs: 0 } },
        models: { demo: { candidates: [{ provider: "offline", model: "offline-demo" }] } },
        retry: { maxRetries: 0 },
      },
      "demo",
      {},
    );
    const gateway = new Gateway(config);
    expect(gateway.models()[0]).toMatchObject({ supportsVision: true, offline: true });
    const offered: string[][] = [];
    const agent = new AgentService({
      gateway,
      registry: new ToolRegistry().register(visionToolSet()),
      store: new InMemoryConversationStore(),
      observer: {
        start: async (t) => void offered.push(t.toolsOffered),
        event: () => {},
        end: async () => {},
      },
    });
    for await (const _ of agent.send(
      ctx,
      { message: "load the image", model: "demo" },
      new AbortController().signal,
    ));
    expect(offered).toEqual([[]]);
  });

  it("a vision alias is offered load_image, which sends the conversation's file as an image part", async () => {
    const { model, agent } = agentWith(
      [{ toolCalls: [call("load_image", { file_id: "png-1" }, "l1")] }, { text: "A dot." }],
      [],
      [visionToolSet()],
    );
    await turn(agent, "seeing");
    expect(model.requests[0]!.tools?.map((t) => t.name)).toContain("load_image");
    const next = model.requests[1]!.messages;
    expect(JSON.parse(toolResult(next, "l1"))).toEqual({
      loaded: true,
      type: "image/png",
      size: PNG.byteLength,
      name: "dot.png",
      fileId: "png-1",
      shown: "after this result",
    });
    expect(lastUser(next).images).toEqual([
      { mediaType: "image/png", data: Buffer.from(PNG).toString("base64") },
    ]);
    expect(lastUser(next).content).toMatch(
      /^\[load_image\] The image below is the file png-1 of this conversation\./,
    );
  });
});

describe("the audit of an added message", () => {
  it("keeps its text (masked, like a user's message) and its images described, never their bytes", async () => {
    const secret = "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD";
    const { agent, observed } = agentWith(
      [{ toolCalls: [call("adder", {}, "a1")] }, { text: "ok" }],
      [adder("adder", imageMessage(`key ${secret}`))],
    );
    await turn(agent);
    const event = observed.find((e) => e.type === "tool_result")!;
    const turnStart = { tenantId: "t1", userId: "u1", turnId: "x", conversationId: "c1" } as TurnStart;
    const row = auditColumns(turnStart, 1, auditOf(event)!);
    const message = row.payload.message as { text: string; images: unknown[] };
    expect(message.text).toContain("key [masked:openai_key]");
    expect(message.text).not.toContain(secret);
    expect(message.images).toEqual([{ type: "image/png", size: PNG.byteLength, name: "dot.png" }]);
    expect(JSON.stringify(row.payload)).not.toContain(Buffer.from(PNG).toString("base64"));
  });
});
