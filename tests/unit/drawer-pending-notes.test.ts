// A background result in the drawer: shown the moment it is queued while the conversation is idle (the drawer
// looks while tasks run), then, when the next turn takes it, before the user's message as a reload shows it.
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { I18nProvider } from "@/components/i18n";
import { applyEvent, newTurn, turnsFromHistory } from "@/features/drawer/components/chat-view";
import { MessageList } from "@/features/drawer/components/message-list";
import type { AgentEvent, HistoryMessage } from "@/features/drawer/components/types";
import { nextPendingLook, PENDING_POLL_MS } from "@/features/drawer/components/use-agent-chat";

const RESULT = "<TERMINAL_TASK_RESULT>\n<task_id>t1</task_id>\n<status>completed</status>";

describe("a background result in the drawer", () => {
  it("a turn's note event shows before the user's message, where the stored history puts it", () => {
    const live = (
      [
        { type: "turn", turnId: "t2", conversationId: "c" },
        { type: "note", noteType: "task_result", text: RESULT },
        { type: "text", delta: "It finished." },
      ] as AgentEvent[]
    ).reduce(applyEvent, newTurn("is it done?"));
    expect(live.parts.map((p) => p.type)).toEqual(["note", "user", "text"]);
    expect(live.parts[0]).toMatchObject({ type: "note", text: RESULT });
    const at = "2026-12-06T00:00:00Z";
    const history: HistoryMessage[] = [
      { id: "m1", turnId: "t2", role: "user", kind: "notification", content: RESULT, createdAt: at },
      { id: "m2", turnId: "t2", role: "user", content: "is it done?", createdAt: at },
      { id: "m3", turnId: "t2", role: "assistant", content: "It finished.", createdAt: at },
    ];
    const [reloaded] = turnsFromHistory(history);
    expect(reloaded!.parts.map((p) => p.type)).toEqual(live.parts.map((p) => p.type));
    expect(reloaded!.message).toBe("is it done?");
  });

  it("looks while tasks run, once more after the last ends, and stops when nothing can come", () => {
    expect(nextPendingLook({ tasks: 1, sawTasks: false, elapsedMs: 0 })).toBe(PENDING_POLL_MS);
    // The task just ended: its notice is written right after, so one more look.
    expect(nextPendingLook({ tasks: 0, sawTasks: true, elapsedMs: 3_000 })).toBe(PENDING_POLL_MS);
    expect(nextPendingLook({ tasks: 0, sawTasks: false, elapsedMs: 4_500 })).toBeNull();
    // Opening a conversation with nothing pending and no task costs one look (after a turn: two).
    expect(nextPendingLook({ tasks: 0, sawTasks: false, elapsedMs: 0 })).toBeNull();
    // Slower after a minute, a failed look is tried again later, and a long task is watched for 30 minutes.
    expect(nextPendingLook({ tasks: 2, sawTasks: true, elapsedMs: 61_000 })).toBeGreaterThan(PENDING_POLL_MS);
    expect(nextPendingLook({ tasks: null, sawTasks: true, elapsedMs: 1_000 })).toBeGreaterThan(0);
    expect(nextPendingLook({ tasks: 1, sawTasks: true, elapsedMs: 30 * 60_000 })).toBeNull();
  });

  it("an arrived notice shows open after the last turn, saying the assistant reads it next", () => {
    const turn = { ...newTurn("run it in the background"), turnId: "t1", phase: "done" as const };
    const list = createElement(MessageList, {
      turns: [turn],
      pending: [{ id: 7, type: "task_result", body: RESULT, createdAt: "2026-12-06T00:00:00Z" }],
      running: false,
      onRetry: () => {},
      onEdit: () => {},
      onRegenerate: () => {},
      onFeedback: () => {},
    });
    // biome-ignore lint/correctness/noChildrenProp: createElement's types want required children among the props
    const html = renderToStaticMarkup(createElement(I18nProvider, { locale: "en", children: list }));
    expect(html).toContain('data-pending="true"');
    expect(html).toMatch(/<details[^>]*open=""/);
    expect(html).toContain("the assistant reads it with your next message");
    expect(html).toContain("&lt;TERMINAL_TASK_RESULT&gt;");
    expect(html.indexOf("run it in the background")).toBeLessThan(html.indexOf("TERMINAL_TASK_RESULT"));
  });
});
