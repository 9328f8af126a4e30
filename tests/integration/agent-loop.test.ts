import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ToolRegistry } from "@/lib/agent/registry";
import { type AgentConfig, AgentService, LIMIT_INSTRUCTION } from "@/lib/agent/service";
import { defineTool, StaticToolSet, type Tool } from "@/lib/agent/tool";
import { TodoToolSet } from "@/lib/agent/toolsets/todo";
import { CANCELLED, InMemoryConversationStore, modelHistory } from "@/lib/turns/conversation";
import type { AgentEvent, TurnSummary } from "@/lib/turns/events";
import { call, ScriptedModel, type Step, scriptedGateway } from "../fakes/scripted-model";

const ctx = { tenantId: "t1", userId: "u1", role: "member" as const, conversationId: "c1" };

function agentWith(
  steps: Step[],
  tools: Tool[] | StaticToolSet[] | TodoToolSet[],
  config: Partial<AgentConfig> = {},
) {
  const model = new ScriptedModel(steps);
  const registry = new ToolRegistry();
  const sets = tools.every((t) => "execute" in t)
    ? [new StaticToolSet("test", tools as Tool[])]
    : (tools as StaticToolSet[]);
  for (const s of sets) registry.register(s);
  const store = new InMemoryConversationStore();
  const agent = new AgentService({ gateway: scriptedGateway(model), registry, store }, config);
  return { model, store, agent };
}

async function turn(agent: AgentService, message = "go", signal = new AbortController().signal, extra = {}) {
  const events: AgentEvent[] = [];
  for await (const e of agent.send(ctx, { message, model: "scripted", ...extra }, signal)) events.push(e);
  const done = events[events.length - 1] as Extract<AgentEvent, { type: "done" }>;
  expect(done.type).toBe("done");
  return {
    events,
    summary: done.summary as TurnSummary,
    text: events.flatMap((e) => (e.type === "text" ? [e.delta] : [])).join(""),
  };
}

const echo = defineTool({
  name: "echo",
  description: "Echo",
  parameters: z.object({ value: z.string() }),
  execute: async ({ value }) => ({ echoed: value }),
});
const toolResults = (m: ScriptedModel, n: number) => m.requests[n]!.messages.filter((x) => x.role === "tool");

describe("the tool loop", () => {
  it("stops after maxToolLoops rounds with one last call without tools, and says so", async () => {
    const always = () => ({ toolCalls: [call("echo", { value: String(Math.random()) })] });
    const { model, agent } = agentWith(
      [always, always, always, { text: "Summary of what I found." }],
      [echo],
      { maxToolLoops: 3 },
    );
    const { summary, text, events } = await turn(agent);
    expect(model.requests).toHaveLength(4);
    expect(model.requests[2]!.tools?.length).toBe(1);
    expect(model.requests[3]!.tools).toBeUndefined();
    expect(model.requests[3]!.messages.at(-1)).toEqual({ role: "user", content: LIMIT_INSTRUCTION });
    expect(summary).toMatchObject({ status: "limit", rounds: 4 });
    expect(text).toBe("Summary of what I found.");
    expect(events.some((e) => e.type === "notice" && e.code === "loop_limit")).toBe(true);
  });

  it("gives a clear sentence instead of an empty bubble when the last call has no text", async () => {
    const always = () => ({ toolCalls: [call("echo", { value: String(Math.random()) })] });
    const { agent, store } = agentWith([always, always, { text: "" }], [echo], { maxToolLoops: 2 });
    const { summary, text } = await turn(agent);
    expect(summary.status).toBe("limit");
    expect(text).toMatch(/reached the limit of 2 tool rounds/);
    const stored = await store.history("t1", "c1");
    expect(stored.at(-1)).toMatchObject({
      role: "assistant",
      content: expect.stringMatching(/reached the limit/),
    });
  });

  it("never runs more than 4 tools at once, and appends results in call order", async () => {
    let running = 0;
    let peak = 0;
    const slow = defineTool({
      name: "slow",
      description: "Slow",
      parameters: z.object({ ms: z.number() }),
      execute: async ({ ms }) => {
        running++;
        peak = Math.max(peak, running);
        await new Promise((r) => setTimeout(r, ms));
        running--;
        return `slept ${ms}`;
      },
    });
    const calls = [80, 10, 60, 20, 5].map((ms, i) => call("slow", { ms }, `c${i}`));
    const { model, agent, events } = {
      ...agentWith([{ toolCalls: calls }, { text: "ok" }], [slow]),
      events: [],
    };
    const result = await turn(agent);
    expect(peak).toBe(4);
    expect(toolResults(model, 1).map((m) => (m.role === "tool" ? m.toolCallId : ""))).toEqual([
      "c0",
      "c1",
      "c2",
      "c3",
      "c4",
    ]);
    // Events arrive as tools finish, not in call order.
    const finished = result.events.flatMap((e) => (e.type === "tool_result" ? [e.callId] : []));
    expect(finished[0]).not.toBe("c0");
    expect(events).toEqual([]);
  });

  it("turns a tool that runs past its timeout into an error result", async () => {
    const stuck = defineTool({
      name: "stuck",
      description: "Never returns",
      timeoutMs: 50,
      parameters: z.object({}),
      execute: () => new Promise(() => {}),
    });
    const { model, agent } = agentWith([{ toolCalls: [call("stuck")] }, { text: "ok" }], [stuck]);
    const { summary } = await turn(agent);
    expect(toolResults(model, 1)[0]!.content).toBe('{"error":"stuck timed out after 50 ms"}');
    expect(summary.toolTrace[0]).toMatchObject({ name: "stuck", ok: false, error: "timeout" });
  });

  it("cuts results over 8,000 characters with a marker saying how much was cut", async () => {
    const big = defineTool({
      name: "big",
      description: "Big",
      parameters: z.object({}),
      execute: async () => "x".repeat(10_500),
    });
    const { model, agent } = agentWith([{ toolCalls: [call("big")] }, { text: "ok" }], [big]);
    await turn(agent);
    const content = toolResults(model, 1)[0]!.content;
    expect(content.startsWith("x".repeat(8000))).toBe(true);
    expect(content).toMatch(/\[truncated: 2500 more characters\]$/);
  });

  it("turns thrown errors into masked messages without a stack, and unknown tools into an error result", async () => {
    const boom = defineTool({
      name: "boom",
      description: "Throws",
      parameters: z.object({}),
      execute: async () => {
        throw new Error("upstream rejected key sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD");
      },
    });
    const { model, agent } = agentWith(
      [{ toolCalls: [call("boom"), call("nope", {}, "c-nope")] }, { text: "ok" }],
      [boom],
    );
    await turn(agent);
    const [boomResult, unknown] = toolResults(model, 1);
    expect(boomResult!.content).toMatch(/^\{"error":"upstream rejected key \[masked:openai_key\]"\}$/);
    expect(boomResult!.content).not.toMatch(/at .*\.ts/);
    expect(unknown!.content).toBe('{"error":"unknown tool: nope"}');
  });

  it("names the wrong field when the model's arguments are invalid, so it can try again", async () => {
    const { model, agent } = agentWith(
      [{ toolCalls: [call("echo", { value: 42 })] }, { text: "ok" }],
      [echo],
    );
    await turn(agent);
    expect(toolResults(model, 1)[0]!.content).toMatch(/invalid arguments for echo: value: .*string/);
  });

  it("refuses the third identical call in a row instead of running it", async () => {
    let runs = 0;
    const counted = defineTool({
      name: "counted",
      description: "Counts",
      parameters: z.object({ q: z.string() }),
      execute: async () => ++runs,
    });
    const same = () => ({ toolCalls: [call("counted", { q: "same" })] });
    const { model, agent, events } = {
      ...agentWith([same, same, same, { text: "ok" }], [counted]),
      events: [] as AgentEvent[],
    };
    const result = await turn(agent);
    expect(runs).toBe(2);
    expect(toolResults(model, 3).at(-1)!.content).toMatch(
      /same arguments 3 times in a row; do not repeat it/,
    );
    expect(result.events.some((e) => e.type === "notice" && e.code === "repeated_call")).toBe(true);
    expect(events).toEqual([]);
  });

  it("enableTools: false, or a model that cannot call tools, gives plain Q&A", async () => {
    const a = agentWith([{ text: "plain" }], [echo]);
    await turn(a.agent, "hi", undefined, { enableTools: false });
    expect(a.model.requests[0]!.tools).toBeUndefined();
    const b = agentWith([{ text: "plain" }], [echo]);
    const { events } = await turn(b.agent, "hi", undefined, { model: "plain" });
    expect(b.model.requests[0]!.tools).toBeUndefined();
    expect(events.some((e) => e.type === "notice" && e.code === "tools_unavailable")).toBe(true);
  });
});

describe("messages added by tools", () => {
  it("are stored for people to see and streamed as events, but never sent to the model", async () => {
    const chart = defineTool({
      name: "chart",
      description: "Draws a chart",
      parameters: z.object({}),
      execute: async (_a, tctx) => {
        await tctx.emit({ content: "![sales chart](data:image/png;base64,AAAA)", data: { kind: "image" } });
        return { drawn: true };
      },
    });
    const { model, agent, store } = agentWith(
      [{ toolCalls: [call("chart", {}, "ch1")] }, { text: "Here it is." }],
      [chart],
    );
    const { events } = await turn(agent);
    expect(events).toContainEqual({
      type: "message",
      content: "![sales chart](data:image/png;base64,AAAA)",
      data: { kind: "image" },
    });
    const stored = await store.history("t1", "c1");
    expect(stored.find((m) => m.kind === "display")).toMatchObject({
      role: "assistant",
      data: { kind: "image", toolCallId: "ch1" },
    });
    expect(JSON.stringify(model.requests[1]!.messages)).not.toContain("sales chart");
  });
});

describe("tool authorization", () => {
  const adminOnly = defineTool({
    name: "refund_order",
    description: "Refund",
    roles: ["admin"],
    parameters: z.object({ orderId: z.string() }),
    execute: async () => ({ refunded: true }),
  });

  it("does not offer a tool to a role that may not call it, and refuses a forged call with an audit event", async () => {
    const { model, agent } = agentWith(
      [{ toolCalls: [call("refund_order", { orderId: "A-1" })] }, { text: "ok" }],
      [echo, adminOnly],
    );
    const { events } = await turn(agent);
    expect(model.requests[0]!.tools?.map((t) => t.name)).toEqual(["echo"]);
    expect(toolResults(model, 1)[0]!.content).toBe('{"error":"not allowed"}');
    expect(events).toContainEqual(
      expect.objectContaining({ type: "guardrail", code: "tool_not_allowed", tool: "refund_order" }),
    );
  });

  it("offers and runs it for an admin", async () => {
    const { model, agent } = agentWith(
      [{ toolCalls: [call("refund_order", { orderId: "A-1" })] }, { text: "ok" }],
      [adminOnly],
    );
    const events: AgentEvent[] = [];
    for await (const e of agent.send(
      { ...ctx, role: "admin" },
      { message: "refund", model: "scripted" },
      new AbortController().signal,
    ))
      events.push(e);
    expect(model.requests[0]!.tools?.map((t) => t.name)).toEqual(["refund_order"]);
    expect(toolResults(model, 1)[0]!.content).toBe('{"refunded":true}');
  });
});

describe("Stop", () => {
  it("aborts running tools, gives every call a cancelled result, keeps partial text and ends as stopped", async () => {
    let sawAbort = false;
    const waits = defineTool({
      name: "waits",
      description: "Waits for Stop",
      parameters: z.object({}),
      execute: (_a, tctx) =>
        new Promise((_, reject) => {
          tctx.signal.addEventListener("abort", () => {
            sawAbort = true;
            reject(new Error("aborted"));
          });
        }),
    });
    const { agent, store } = agentWith(
      [{ text: "Let me check.", toolCalls: [call("waits", {}, "w1"), call("waits", {}, "w2")] }],
      [waits],
    );
    const controller = new AbortController();
    const events: AgentEvent[] = [];
    for await (const e of agent.send(ctx, { message: "check", model: "scripted" }, controller.signal)) {
      events.push(e);
      if (e.type === "tool_call" && e.call.id === "w2") setTimeout(() => controller.abort(), 20);
    }
    const done = events.at(-1) as Extract<AgentEvent, { type: "done" }>;
    expect(done.summary.status).toBe("stopped");
    expect(sawAbort).toBe(true);
    const stored = await store.history("t1", "c1");
    expect(stored.map((m) => m.role)).toEqual(["user", "assistant", "tool", "tool"]);
    expect(stored[1]).toMatchObject({ content: "Let me check." });
    expect(stored.slice(2).map((m) => (m.role === "tool" ? [m.toolCallId, m.content] : []))).toEqual([
      ["w1", CANCELLED],
      ["w2", CANCELLED],
    ]);
  });

  it("repairs a stored history whose turn crashed mid-tool, so providers accept it", () => {
    const repaired = modelHistory([
      { role: "user", content: "hi" },
      { role: "assistant", content: "", toolCalls: [call("echo", {}, "a"), call("echo", {}, "b")] },
      { role: "tool", toolCallId: "a", name: "echo", content: "1" },
      { role: "user", content: "again" },
    ]);
    expect(repaired.map((m) => (m.role === "tool" ? `tool:${m.toolCallId}` : m.role))).toEqual([
      "user",
      "assistant",
      "tool:a",
      "tool:b",
      "user",
    ]);
  });
});

describe("the todo tool set", () => {
  it("shows the current plan before the user's message every round, marked as a reminder", async () => {
    const plan = [
      { step: "Look up orders", status: "in_progress" },
      { step: "Summarise", status: "pending" },
    ];
    const { model, agent } = agentWith(
      [
        { toolCalls: [call("todo_list", { plan })] },
        { toolCalls: [call("todo_list", { plan: [{ ...plan[0], status: "completed" }, plan[1]] })] },
        { text: "done" },
      ],
      [new TodoToolSet()],
    );
    await turn(agent, "Please do the thing");
    const userMessage = (n: number) => model.requests[n]!.messages.find((m) => m.role === "user")!.content;
    expect(userMessage(0)).toBe("Please do the thing");
    expect(userMessage(1)).toMatch(
      /^<TODO_LIST_REMINDER>\nThis is your current plan, shown as a reminder\. It is not a new instruction/,
    );
    expect(userMessage(1)).toContain("1. [in_progress] Look up orders");
    expect(userMessage(2)).toContain("1. [completed] Look up orders");
    expect(userMessage(2).endsWith("Please do the thing")).toBe(true);
    expect(model.requests[0]!.messages[0]!.content).toContain("todo_list");
  });

  it("rebuilds the plan from the stored history for a new process, and clears on an empty plan", async () => {
    const set = new TodoToolSet();
    set.restore([
      { name: "todo_list", args: { plan: [{ step: "A", status: "pending" }] }, result: '{"ok":true}' },
    ]);
    expect(set.iterationInjection()).toContain("1. [pending] A");
    set.restore([
      { name: "todo_list", args: { plan: [{ step: "A", status: "pending" }] }, result: '{"ok":true}' },
      { name: "todo_list", args: { plan: [] }, result: '{"ok":true}' },
    ]);
    expect(set.iterationInjection()).toBeNull();
  });
});

describe("the registry", () => {
  it("fails at start when two tool sets define the same tool, naming both", () => {
    const registry = new ToolRegistry().register(new StaticToolSet("first", [echo]));
    expect(() => registry.register(new StaticToolSet("second", [echo]))).toThrow(
      'tool "echo" is defined by both "first" and "second"',
    );
  });

  it("gives each conversation its own tool-set state", () => {
    const registry = new ToolRegistry().register(new TodoToolSet());
    const a = registry.forConversation("a", () => [])[0] as TodoToolSet;
    const b = registry.forConversation("b", () => [])[0] as TodoToolSet;
    expect(a).not.toBe(b);
    expect(registry.forConversation("a", () => [])[0]).toBe(a);
  });
});
