import { describe, expect, it } from "vitest";
import { splitPendingTable } from "@/components/ui/pending-table";
import { dateGroupOf, groupByDate } from "@/features/drawer/components/history-groups";
import { messageLength } from "@/features/drawer/components/message-limit";
import { isRetryable } from "@/features/drawer/components/types";
import { toTurnError } from "@/features/drawer/components/use-agent-chat";
import { MESSAGE_MAX_CHARS, sendTurnInput } from "@/features/drawer/contracts";
import { ApiError } from "@/lib/client/api";
import { plainTitle } from "@/lib/core/text/plain-title";
import { titleFrom } from "@/lib/governance/conversations";

describe("conversation titles are plain text", () => {
  it.each([
    ["## Plan the **Q3** launch", "Plan the Q3 launch"],
    ["# Title\nbody", "Title"],
    ["> - [ ] _check_ the `orders` table", "check the orders table"],
    ["See [the docs](https://example.com) and ![a chart](https://x/y.png)", "See the docs and a chart"],
    ["~~old~~ new *idea*", "old new idea"],
    ["```sql\nselect * from orders\n```", "select * from orders"],
    ["| Model | Cost |\n|---|---|\n| a | 1 |", "Model · Cost"],
    ["1. first step", "first step"],
    ["keep snake_case_names and 2*3*4 as they are", "keep snake_case_names and 2*3*4 as they are"],
    ["<b>bold</b> words", "bold words"],
  ])("%j → %j", (markdown, title) => {
    expect(plainTitle(markdown)).toBe(title);
  });

  it("shortens long titles with an ellipsis, and a message with no words stays a new conversation", () => {
    const title = plainTitle(`**${"word ".repeat(40)}**`);
    expect(title).toHaveLength(60);
    expect(title.endsWith("…")).toBe(true);
    expect(titleFrom("```\n```")).toBe("New conversation");
    expect(titleFrom("---")).toBe("New conversation");
  });
});

describe("a table streaming at the end of an answer waits until its block is complete", () => {
  const table = "| Model | Cost |\n|---|---|\n| gpt | 1 |";

  it("holds back the rows while the stream is open, even after a row's newline", () => {
    expect(splitPendingTable(`Costs:\n\n${table}`, true)).toEqual({ ready: "Costs:\n", pendingRows: 2 });
    expect(splitPendingTable(`Costs:\n\n${table}\n`, true)).toEqual({ ready: "Costs:\n", pendingRows: 2 });
    expect(splitPendingTable("Costs:\n\n| Mod", true)).toEqual({ ready: "Costs:\n", pendingRows: 1 });
  });

  it("renders the table once a blank line or another block follows it, or the answer ended", () => {
    expect(splitPendingTable(`${table}\n\nDone.`, true)).toEqual({
      ready: `${table}\n\nDone.`,
      pendingRows: 0,
    });
    expect(splitPendingTable(`${table}\n\n`, true).pendingRows).toBe(0);
    expect(splitPendingTable(table, false)).toEqual({ ready: table, pendingRows: 0 });
  });

  it("leaves pipes inside an open code block alone", () => {
    const code = "```\n| not | a table |";
    expect(splitPendingTable(code, true)).toEqual({ ready: code, pendingRows: 0 });
  });
});

describe("the message counter", () => {
  it("appears from 80 % of the limit, and past the limit blocks sending", () => {
    expect(messageLength("x".repeat(25_599))).toMatchObject({ showCounter: false, over: false });
    expect(messageLength("x".repeat(25_600))).toMatchObject({
      showCounter: true,
      over: false,
      length: 25_600,
    });
    expect(messageLength("x".repeat(MESSAGE_MAX_CHARS))).toMatchObject({ over: false });
    expect(messageLength("x".repeat(MESSAGE_MAX_CHARS + 1))).toMatchObject({ over: true, max: 32_000 });
  });

  it("counts as the server does: trimmed, so the same text is refused on both sides", () => {
    const padded = `  ${"x".repeat(MESSAGE_MAX_CHARS)}  \n`;
    expect(messageLength(padded).over).toBe(false);
    expect(sendTurnInput.safeParse({ message: padded }).success).toBe(true);
    const over = "x".repeat(MESSAGE_MAX_CHARS + 1);
    expect(messageLength(over).over).toBe(true);
    expect(sendTurnInput.safeParse({ message: over }).success).toBe(false);
  });
});

describe("history groups by the reader's calendar day", () => {
  const now = new Date(2026, 2, 10, 9, 30); // 10 March, 09:30 local
  it.each([
    [new Date(2026, 2, 10, 0, 0), "today"],
    [new Date(2026, 2, 9, 23, 59), "yesterday"],
    [new Date(2026, 2, 9, 0, 0), "yesterday"],
    [new Date(2026, 2, 8, 23, 0), "week"],
    [new Date(2026, 2, 3, 0, 0), "week"],
    [new Date(2026, 2, 2, 23, 59), "older"],
    [new Date(2025, 11, 31), "older"],
  ])("%s is %s", (when, group) => {
    expect(dateGroupOf(when, now)).toBe(group);
  });

  it("keeps the list's order inside each group and leaves empty groups out", () => {
    const items = [
      { id: "a", at: new Date(2026, 2, 10, 9) },
      { id: "b", at: new Date(2026, 2, 10, 8) },
      { id: "c", at: new Date(2026, 1, 1) },
    ];
    expect(groupByDate(items, (i) => i.at, now)).toEqual([
      { group: "today", items: [items[0], items[1]] },
      { group: "older", items: [items[2]] },
    ]);
  });
});

describe("a failed send says why, and offers Retry only when it can help", () => {
  const now = 1_000_000;
  it("shows the server's own field message for a refusal, with no Retry", () => {
    const error = toTurnError(
      new ApiError(422, "the request is invalid", {
        fields: { message: ["the message is too long (32,000 characters at most)"] },
      }),
    );
    expect(error).toEqual({
      kind: "refused",
      message: "the message is too long (32,000 characters at most)",
    });
    expect(isRetryable(error)).toBe(false);
    expect(toTurnError(new ApiError(409, "the last answer is still running"))).toEqual({
      kind: "refused",
      message: "the last answer is still running",
    });
  });

  it("retries server failures, lost connections, and a rate limit after its wait", () => {
    expect(isRetryable(toTurnError(new ApiError(500, "internal error")))).toBe(true);
    // The service briefly away: said as such, Retry after its Retry-After (2 s when the answer has none).
    const away = toTurnError(new ApiError(503, "the service is briefly unavailable"), 5, now);
    expect(away).toEqual({ kind: "unavailable", retryAt: now + 5_000 });
    expect(isRetryable(away)).toBe(true);
    expect(toTurnError(new ApiError(503, "x"), undefined, now)).toEqual({
      kind: "unavailable",
      retryAt: now + 2_000,
    });
    expect(toTurnError(new ApiError(0, "fetch failed"))).toEqual({ kind: "network" });
    expect(toTurnError(new TypeError("Failed to fetch"))).toEqual({ kind: "network" });
    const limited = toTurnError(new ApiError(429, "slow down"), 30, now);
    expect(limited).toEqual({ kind: "rateLimited", message: "slow down", retryAt: now + 30_000 });
    expect(isRetryable(limited)).toBe(true);
    expect(toTurnError(new ApiError(401, "sign in first"))).toEqual({ kind: "signedOut" });
  });
});
