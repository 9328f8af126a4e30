import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { ToolRegistry } from "@/lib/agent/registry";
import { AgentService } from "@/lib/agent/service";
import { defineTool, StaticToolSet } from "@/lib/agent/tool";
import { parseGatewayConfig } from "@/lib/gateway/config";
import { Gateway } from "@/lib/gateway/gateway";
import { InMemoryConversationStore } from "@/lib/turns/conversation";
import type { AgentEvent } from "@/lib/turns/events";
import { startFakeAnthropic } from "../fakes/anthropic";
import type { FakeProvider } from "../fakes/http";
import { startFakeOpenAI } from "../fakes/openai";

let openai: FakeProvider;
let anthropic: FakeProvider;
beforeAll(async () => {
  [openai, anthropic] = await Promise.all([startFakeOpenAI(), startFakeAnthropic()]);
});
afterAll(async () => {
  await Promise.all([openai.close(), anthropic.close()]);
});

const waitsForStop = defineTool({
  name: "lookup",
  description: "Slow lookup",
  parameters: z.object({ q: z.string() }),
  execute: (_args, ctx) =>
    new Promise((_, reject) => ctx.signal.addEventListener("abort", () => reject(new Error("stopped")))),
});

/** A gateway over both fakes, no retries: "gpt" is OpenAI's wire format, "claude" Anthropic's. */
function providersGateway() {
  return new Gateway(
    parseGatewayConfig(
      {
        providers: {
          openai: { type: "openai", baseUrl: openai.url },
          anthropic: { type: "anthropic", baseUrl: anthropic.url },
        },
        models: {
          gpt: { candidates: [{ provider: "openai", model: "gpt-4o" }] },
          claude: { candidates: [{ provider: "anthropic", model: "claude-sonnet-4-6" }] },
        },
        retry: { maxRetries: 0 },
      },
      "test",
      {},
    ),
  );
}

function agentOver(store: InMemoryConversationStore) {
  const gateway = providersGateway();

  const registry = new ToolRegistry().register(new StaticToolSet("slow", [waitsForStop]));
  return new AgentService({ gateway, registry, store });
}

async function run(agent: AgentService, model: string, message: string, stopOnToolCall: boolean) {
  const controller = new AbortController();
  const events: AgentEvent[] = [];
  for await (const e of agent.send(
    { tenantId: "t", userId: "u", role: "member", conversationId: "conv" },
    { message, model },
    controller.signal,
  )) {
    events.push(e);
    if (stopOnToolCall && e.type === "tool_call") setTimeout(() => controller.abort(), 20);
  }
  return events.at(-1) as Extract<AgentEvent, { type: "done" }>;
}

describe.each(["gpt", "claude"])("after Stop mid-tool (%s)", (model) => {
  it("the stored history has no dangling tool call and the next request is accepted by both providers", async () => {
    const fake = model === "gpt" ? openai : anthropic;
    fake.reset();
    fake.enqueue({
      kind: "tool_calls",
      calls: [
        { id: "call_stop_1", name: "lookup", args: { q: "x" } },
        { id: "call_stop_2", name: "lookup", args: { q: "y" } },
      ],
    });
    const store = new InMemoryConversationStore();
    const agent = agentOver(store);
    const stopped = await run(agent, model, "look it up", true);
    expect(stopped.summary.status).toBe("stopped");

    // The next turn, on either provider, sends that history and must be accepted (the fakes refuse a
    // dangling tool call with a 400, as the real APIs do).
    openai.enqueue({ kind: "text", text: "fine on OpenAI" });
    anthropic.enqueue({ kind: "text", text: "fine on Anthropic" });
    const next = await run(agent, "gpt", "never mind", false);
    expect(next.summary).toMatchObject({ status: "success" });
    const nextClaude = await run(agent, "claude", "and now?", false);
    expect(nextClaude.summary).toMatchObject({ status: "success" });
  });
});

describe("the fakes refuse what the real APIs refuse", () => {
  it("a history with a dangling tool call gets a 400 from both", async () => {
    const store = new InMemoryConversationStore();
    await store.append("t", "conv", "turn0", [
      { role: "user", content: "hi" },
      { role: "assistant", content: "", toolCalls: [{ id: "dangling", name: "lookup", args: {} }] },
    ]);
    // Bypass the repair on purpose: send the raw stored messages.
    const raw = await store.history("t", "conv");
    const gateway = providersGateway();

    await expect(
      gateway.chat({ model: "gpt", messages: [...raw, { role: "user", content: "next" }] }),
    ).rejects.toMatchObject({ status: 400 });
    await expect(
      gateway.chat({ model: "claude", messages: [...raw, { role: "user", content: "next" }] }),
    ).rejects.toMatchObject({ status: 400 });
  });
});
