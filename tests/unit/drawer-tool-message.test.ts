// The drawer's view of a message a tool added for the model (load_image): on the tool's card, live from its
// `tool_result` event and after a reload from the stored `tool_message`, never mistaken for the user's words.
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { I18nProvider } from "@/components/i18n";
import { applyEvent, newTurn, turnsFromHistory } from "@/features/drawer/components/chat-view";
import { ToolCard } from "@/features/drawer/components/tool-card";
import type { AgentEvent, ChatTurn, HistoryMessage, ToolCardState } from "@/features/drawer/components/types";

const toolOf = (turn: ChatTurn, callId = "l1"): ToolCardState => {
  const part = turn.parts.find((p) => p.type === "tool" && p.tool.callId === callId);
  if (part?.type !== "tool") throw new Error("no tool card");
  return part.tool;
};
const message = {
  text: "[load_image] The image below is the file f1 of this conversation.",
  images: [{ type: "image/png" as const, size: 2048, name: "dot.png", fileId: "f1" }],
};

describe("a message a tool added, in the drawer", () => {
  it("joins the tool's card from the live tool_result event", () => {
    const turn = [
      { type: "turn", turnId: "t1", conversationId: "c" },
      { type: "tool_call", call: { id: "l1", name: "load_image", args: { file_id: "f1" } }, round: 1 },
      {
        type: "tool_result",
        callId: "l1",
        name: "load_image",
        ok: true,
        result: "{}",
        durationMs: 3,
        message,
      },
    ].reduce((t, e) => applyEvent(t, e as AgentEvent), newTurn("look"));
    expect(toolOf(turn)).toMatchObject({ status: "ok", message });
  });

  it("joins it again after a reload, and the user's own words stay the turn's message", () => {
    const history: HistoryMessage[] = [
      { id: "m1", turnId: "t1", role: "user", content: "look", createdAt: "" },
      {
        id: "m2",
        turnId: "t1",
        role: "assistant",
        content: "",
        toolCalls: [{ id: "l1", name: "load_image", args: { file_id: "f1" } }],
        createdAt: "",
      },
      {
        id: "m3",
        turnId: "t1",
        role: "tool",
        toolCallId: "l1",
        name: "load_image",
        content: "{}",
        createdAt: "",
      },
      {
        id: "m4",
        turnId: "t1",
        role: "user",
        kind: "tool_message",
        content: message.text,
        data: { toolCallId: "l1", tool: "load_image", images: message.images },
        createdAt: "",
      },
      { id: "m5", turnId: "t1", role: "assistant", content: "A dot.", createdAt: "" },
    ];
    const [turn] = turnsFromHistory(history);
    expect(turn!.message).toBe("look");
    expect(turn!.parts.map((p) => p.type)).toEqual(["user", "tool", "text"]);
    expect(toolOf(turn!).message).toEqual(message);
  });

  it("shows a conversation file's image as a thumbnail from the app's own route, a URL's by its address only", () => {
    const tool: ToolCardState = {
      callId: "l1",
      name: "load_image",
      args: {},
      status: "ok",
      result: "{}",
      message: {
        text: "…",
        images: [...message.images, { type: "image/jpeg", size: 4096, name: "https://img.example/cat.jpg" }],
      },
    };
    const card = createElement(ToolCard, { tool, turnId: "t1" });
    // biome-ignore lint/correctness/noChildrenProp: createElement's types want required children among the props
    const html = renderToStaticMarkup(createElement(I18nProvider, { locale: "en", children: card }));
    expect(html).toContain('data-testid="agent-tool-message"');
    expect(html).toContain("Shown to the assistant");
    expect(html).toMatch(/data-testid="agent-tool-message-text"[^>]*>…</);
    expect(html).toContain('src="/api/agent/files/f1"');
    expect(html).toContain('alt="Image: dot.png"');
    expect(html).toContain("Image: https://img.example/cat.jpg");
    expect(html).not.toContain('src="https://img.example');
    expect(html).toContain("image/jpeg · 4 KB");
  });
});
