import { describe, expect, it } from "vitest";
import { OfflineAdapter, pickTool } from "@/lib/gateway/adapters/offline";
import type { ToolSchema } from "@/lib/gateway/types";

const tools: ToolSchema[] = [
  {
    name: "get_weather",
    description: "Current weather for a city",
    parameters: {
      type: "object",
      properties: { city: { type: "string" }, unit: { type: "string", enum: ["celsius", "fahrenheit"] } },
      required: ["city"],
    },
  },
  {
    name: "create_ticket",
    description: "Open a support ticket",
    keywords: ["support", "bug"],
    parameters: {
      type: "object",
      properties: { title: { type: "string" }, priority: { type: "integer" } },
      required: ["title"],
    },
  },
];
const signal = new AbortController().signal;

describe("the offline demo model", () => {
  it("calls the tool the user's words name, with arguments taken from the words", async () => {
    const adapter = new OfflineAdapter();
    const result = await adapter.chat(
      {
        model: "offline-demo",
        messages: [{ role: "user", content: 'What is the weather in "Lisbon" in fahrenheit?' }],
        tools,
      },
      signal,
    );
    expect(result.finishReason).toBe("tool_calls");
    expect(result.toolCalls).toEqual([
      {
        id: expect.stringMatching(/^call_offline_/),
        name: "get_weather",
        args: { city: "Lisbon", unit: "fahrenheit" },
      },
    ]);
  });

  it("picks a tool by its keywords, and not by a generic verb", () => {
    expect(pickTool("there is a bug in checkout, priority 2", tools)?.name).toBe("create_ticket");
    expect(pickTool("get me a coffee", tools)).toBeUndefined();
  });

  it("answers from the tool result on the next round", async () => {
    const adapter = new OfflineAdapter();
    const result = await adapter.chat(
      {
        model: "offline-demo",
        tools,
        messages: [
          { role: "user", content: "weather in Lisbon" },
          {
            role: "assistant",
            content: "",
            toolCalls: [{ id: "c1", name: "get_weather", args: { city: "Lisbon" } }],
          },
          { role: "tool", toolCallId: "c1", name: "get_weather", content: '{"tempC":21}' },
        ],
      },
      signal,
    );
    expect(result.toolCalls).toEqual([]);
    expect(result.content).toContain('get_weather returned: {"tempC":21}');
  });

  it("is deterministic and says what it is when no tool fits, streaming word by word", async () => {
    const adapter = new OfflineAdapter();
    const req = { model: "offline-demo", messages: [{ role: "user" as const, content: "hello there" }] };
    const a = await adapter.chat(req, signal);
    const b = await adapter.chat(req, signal);
    expect(a).toEqual(b);
    expect(a.content).toMatch(/offline demo model/);
    const pieces: string[] = [];
    for await (const e of adapter.stream(req, signal)) if (e.type === "text") pieces.push(e.delta);
    expect(pieces.length).toBeGreaterThan(5);
    expect(pieces.join("")).toBe(a.content);
  });
});
