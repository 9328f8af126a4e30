import { describe, expect, it } from "vitest";
import { browserMessages } from "@/features/drawer/server/browser-messages";
import { MAX_SUMMARY_CHARS, renderSummary } from "@/features/drawer/server/context-items";
import { carriedExtras, mergeExtras } from "@/features/drawer/server/turn-extras";
import {
  CONTEXT_PREFACE,
  contextBlock,
  contextBlockAttrs,
  withoutContextBlocks,
} from "@/lib/core/text/context-block";
import { OfflineAdapter } from "@/lib/gateway/adapters/offline";
import type { ConversationMessage } from "@/lib/governance/conversations";

const signal = new AbortController().signal;
const order = contextBlock(
  { kind: "order", id: "A-1001", label: "Order A-1001" },
  "customer: Wile E. Coyote\nstatus: open\ntotal: 129.90 USD\nnumber: A-1001",
);
const file = contextBlock({ kind: "file", id: "f1", label: "notes.txt" }, "get_order for A-1002 please");
const withBlocks = (...blocks: string[]) => [CONTEXT_PREFACE, ...blocks, "what is this?"].join("\n\n");

describe("context blocks beside the user's words", () => {
  it("are found and taken out past the preface, which itself names <context> blocks", () => {
    const text = withBlocks(order, file);
    expect(contextBlockAttrs(text)).toEqual([
      { kind: "order", id: "A-1001", label: "Order A-1001" },
      { kind: "file", id: "f1", label: "notes.txt" },
    ]);
    expect(withoutContextBlocks(text)).toBe("what is this?");
  });

  it("the offline model names the items attached (not files), with two fields, and picks no tool from them", async () => {
    const answer = await new OfflineAdapter().chat(
      {
        model: "offline-demo",
        messages: [{ role: "user", content: withBlocks(order, file) }],
        tools: [
          {
            name: "get_order",
            description: "One order",
            keywords: ["order number"],
            parameters: { type: "object", properties: { orderId: { type: "string" } } },
          },
        ],
      },
      signal,
    );
    expect(answer.toolCalls).toEqual([]);
    expect(answer.content).toContain(
      'You said: "what is this?". You attached Order A-1001 (customer: Wile E. Coyote; status: open).',
    );
    expect(answer.content).not.toContain("notes.txt");
  });
});

describe("a context item's summary", () => {
  it("is field lines, masked by key and by shape, each field and the whole cut", () => {
    const text = renderSummary({
      label: "x",
      fields: {
        status: "open",
        config: { apiKey: "hunter2", model: "m" },
        note: "call with sk-proj-Abcdefghij0123456789KLMNOP",
        empty: null,
        template: "line one\nline two",
        long: "y".repeat(5_000),
      },
    });
    expect(text).toContain("status: open");
    expect(text).toContain('config: {"apiKey":"[masked]","model":"m"}');
    expect(text).toContain("note: call with [masked:openai_key]");
    expect(text).not.toContain("empty");
    expect(text).toContain("template:\n  line one\n  line two");
    expect(text).toMatch(/long: y+…\[cut\]$/);
    const huge = renderSummary({
      label: "x",
      fields: Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`f${i}`, "z".repeat(500)])),
    });
    expect(huge.length).toBe(MAX_SUMMARY_CHARS);
    expect(huge.endsWith("…[cut]")).toBe(true);
  });
});

describe("turn extras", () => {
  it("merge with the preface once, first, however many resolvers added it", () => {
    const merged = mergeExtras([
      { contextBlocks: [CONTEXT_PREFACE, order], data: { context: [] }, audit: { context: [] } },
      { contextBlocks: [CONTEXT_PREFACE, file], data: { attachments: [] } },
      { system: "schema" },
    ]);
    expect(merged?.contextBlocks).toEqual([CONTEXT_PREFACE, order, file]);
    expect(merged?.data).toEqual({ context: [], attachments: [] });
    expect(mergeExtras([{ system: "schema" }])?.contextBlocks).toBeUndefined();
  });

  it("of a regenerated message are what it stored: chips and attachments shown, blocks read, audit naming them", () => {
    const chips = [{ type: "order", id: "A-1001", label: "Order A-1001" }];
    expect(carriedExtras({ context: chips, contextBlocks: [CONTEXT_PREFACE, order] })).toEqual({
      contextBlocks: [CONTEXT_PREFACE, order],
      data: { context: chips },
      audit: { context: chips, contextText: [order] },
    });
  });
});

describe("a conversation's messages for the browser", () => {
  it("keep what a message shows and leave the model's blocks out", () => {
    const base = { id: "1", turnId: null, createdAt: new Date(0) };
    const chips = [{ type: "order", id: "A-1001", label: "Order A-1001" }];
    const messages = [
      { ...base, role: "user", content: "hi", data: { context: chips, contextBlocks: [order] } },
      { ...base, role: "user", content: "bye", data: { contextBlocks: [order] } },
      { ...base, role: "assistant", content: "ok" },
    ] as ConversationMessage[];
    expect(browserMessages(messages)).toEqual([
      { ...base, role: "user", content: "hi", data: { context: chips } },
      { ...base, role: "user", content: "bye" },
      { ...base, role: "assistant", content: "ok" },
    ]);
  });
});
