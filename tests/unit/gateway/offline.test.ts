import { describe, expect, it } from "vitest";
import { describeResult, OfflineAdapter, pickTool } from "@/lib/gateway/adapters/offline";
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
    expect(pickTool("tell me about all the bugs", tools)?.name).toBe("create_ticket");
    expect(pickTool("tell me everything about supportive debugging", tools)).toBeUndefined();
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
    expect(result.content).toBe("Here is what **get_weather** returned:\n\n- **tempC**: 21");
  });

  it("answers a list of records with a markdown table, and an error in words", () => {
    const rows = JSON.stringify({
      count: 2,
      orders: [
        { orderId: "A-1", total: "9.50", tags: ["x"] },
        { orderId: "A-2", total: "1|2" },
      ],
    });
    expect(describeResult("query_orders", rows)).toBe(
      "Here is what **query_orders** found (2):\n\n| orderId | total |\n| --- | --- |\n| A-1 | 9.50 |\n| A-2 | 1\\|2 |",
    );
    expect(describeResult("get_order", '{"error":"order X not found"}')).toBe(
      "**get_order** reported a problem: order X not found",
    );
    expect(describeResult("query_orders", '{"count":0,"orders":[]}')).toBe("**query_orders** found nothing.");
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
