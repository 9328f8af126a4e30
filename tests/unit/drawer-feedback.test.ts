// The drawer's thumbs up / down on an answer: what a press asks for, what shows while it saves, and how the
// answer's action row shows the user's stored vote.
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { I18nProvider } from "@/components/i18n";
import { applyEvent, newTurn } from "@/features/drawer/components/chat-view";
import { optimisticFeedback, voteAfterPress } from "@/features/drawer/components/feedback-view";
import { MessageList } from "@/features/drawer/components/message-list";
import type { AgentEvent, ChatTurn, TurnFeedback } from "@/features/drawer/components/types";
import { turnFeedbackInput } from "@/features/drawer/contracts";

const AT = "2026-12-06T10:00:00.000Z";
const down: TurnFeedback = { value: "down", comment: "Wrong refund window", updatedAt: AT };

const answered = (feedback: ChatTurn["feedback"]): ChatTurn => ({
  ...(
    [
      { type: "turn", turnId: "0193a0c2-7d1e-7c3a-9f2b-4c5d6e7f8a05", conversationId: "c" },
      { type: "text", delta: "Refunds take 5 working days." },
    ] as AgentEvent[]
  ).reduce(applyEvent, newTurn("How long do refunds take?")),
  phase: "done",
  feedback,
});

const render = (turn: ChatTurn, locale: "en" | "zh" = "en") => {
  const list = createElement(MessageList, {
    turns: [turn],
    running: false,
    onRetry: () => {},
    onEdit: () => {},
    onRegenerate: () => {},
    onFeedback: () => {},
  });
  // biome-ignore lint/correctness/noChildrenProp: createElement's types want required children among the props
  return renderToStaticMarkup(createElement(I18nProvider, { locale, children: list }));
};
/** The opening tag of the button with this test id, found by plain string search (no RegExp built from it). */
function button(html: string, testId: string): string | null {
  const at = html.indexOf(`data-testid="${testId}"`);
  if (at === -1) return null;
  const start = html.lastIndexOf("<button", at);
  const end = html.indexOf(">", at);
  // The attribute must sit inside a <button …> tag: no tag closes between the tag's start and it.
  if (start === -1 || end === -1 || html.lastIndexOf(">", at) > start) return null;
  return html.slice(start, end + 1);
}

describe("the drawer's feedback", () => {
  it("a press votes, changes the vote, or takes the pressed one back", () => {
    expect(voteAfterPress(null, "up")).toBe("up");
    expect(voteAfterPress(down, "up")).toBe("up");
    expect(voteAfterPress(down, "down")).toBeNull();
  });

  it("shows the new vote at once, keeping the comment unless one is given", () => {
    const now = new Date(AT);
    expect(optimisticFeedback(down, { value: "up" }, now)).toEqual({ ...down, value: "up" });
    expect(optimisticFeedback(down, { value: "down", comment: "  Better  " }, now)?.comment).toBe("Better");
    expect(optimisticFeedback(down, { value: "down", comment: "   " }, now)?.comment).toBeNull();
    expect(optimisticFeedback(null, { value: "down" }, now)).toEqual({
      value: "down",
      comment: null,
      updatedAt: AT,
    });
    expect(optimisticFeedback(down, { value: null }, now)).toBeNull();
  });

  it("shows the stored vote pressed, the other not, and the comment under the answer", () => {
    const html = render(answered(down));
    expect(button(html, "agent-feedback-down")).toContain('aria-pressed="true"');
    expect(button(html, "agent-feedback-up")).toContain('aria-pressed="false"');
    expect(button(html, "agent-feedback-up")).toContain('aria-label="Good answer"');
    expect(html).toContain('data-vote="down"');
    expect(html).toContain("Your comment: Wrong refund window");
    expect(button(html, "agent-feedback-comment-open")).not.toBeNull();
    expect(html).toMatch(/<fieldset[^>]*aria-label="Your rating of this answer"/);
    expect(render(answered(down), "zh")).toContain('aria-label="回答不好"');
  });

  it("offers both thumbs unpressed with no vote, and no comment button until there is one", () => {
    const html = render(answered(null));
    expect(button(html, "agent-feedback-up")).toContain('aria-pressed="false"');
    expect(button(html, "agent-feedback-down")).toContain('aria-pressed="false"');
    expect(button(html, "agent-feedback-comment-open")).toBeNull();
    expect(html).not.toContain("agent-feedback-note");
  });

  it("offers no thumbs before the server has said what the vote is, nor on an answer without words", () => {
    expect(render(answered(undefined))).not.toContain("agent-feedback-up");
    const silent: ChatTurn = {
      ...answered(null),
      parts: answered(null).parts.filter((p) => p.type === "user"),
    };
    expect(render(silent)).not.toContain("agent-feedback-up");
  });

  it("a finished turn starts with no vote; the input takes up or down and names value otherwise", () => {
    const done = applyEvent(answered(undefined), {
      type: "done",
      summary: {
        turnId: "0193a0c2-7d1e-7c3a-9f2b-4c5d6e7f8a05",
        status: "success",
        usage: {
          inputTokens: 1,
          outputTokens: 1,
          cachedInputTokens: 0,
          cacheWriteTokens: 0,
          reasoningTokens: 0,
        },
        cost: "0",
        latencyMs: 1,
        servedModel: "offline-demo",
      },
    } as AgentEvent);
    expect(done.feedback).toBeNull();
    expect(turnFeedbackInput.safeParse({ value: "down", comment: "ok" }).success).toBe(true);
    const bad = turnFeedbackInput.safeParse({ value: "meh" });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]?.path).toEqual(["value"]);
  });
});
