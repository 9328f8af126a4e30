import type {
  ConfirmCallInput,
  ConfirmCallResult,
  TurnFeedback,
  TurnFeedbackInput,
} from "@/features/drawer/contracts";
import { fetchJson, sendJson } from "@/lib/client/api";
import type { ConversationSummary, HistoryMessage, LedgerTurn, ModelInfo, PendingNotice } from "./types";

const conversationPath = (id: string) => `/api/agent/conversations/${encodeURIComponent(id)}`;

export const agentApi = {
  models: () => fetchJson<{ models: ModelInfo[]; defaultModel: string }>("/api/agent/models"),
  /** The user's conversations, newest first; `search` matches titles and message text on the server. */
  conversations: (search = "", signal?: AbortSignal) =>
    fetchJson<{ conversations: ConversationSummary[] }>(
      search ? `/api/agent/conversations?q=${encodeURIComponent(search)}` : "/api/agent/conversations",
      signal,
    ),
  conversation: (id: string, signal?: AbortSignal) =>
    fetchJson<{ conversation: ConversationSummary; messages: HistoryMessage[] }>(
      conversationPath(id),
      signal,
    ),
  /** The notices waiting for the conversation's next turn, and how many of its background tasks still run. */
  pending: (id: string, signal?: AbortSignal) =>
    fetchJson<{ notices: PendingNotice[]; tasks: number }>(`${conversationPath(id)}/pending`, signal),
  rename: (id: string, title: string) =>
    sendJson<{ conversation: ConversationSummary }>("PATCH", conversationPath(id), { title }),
  remove: (id: string) => sendJson<void>("DELETE", conversationPath(id)),
  /** The turn's ledger row and the user's own vote on its answer. */
  turn: (turnId: string) =>
    fetchJson<{ turn: LedgerTurn; feedback: TurnFeedback | null }>(
      `/api/agent/turns/${encodeURIComponent(turnId)}`,
    ),
  /** The user's thumbs up / down on an answer of theirs (and its comment); sending it again changes it. */
  vote: (turnId: string, input: TurnFeedbackInput) =>
    sendJson<{ feedback: TurnFeedback }>(
      "PUT",
      `/api/agent/turns/${encodeURIComponent(turnId)}/feedback`,
      input,
    ),
  /** Takes the user's vote on an answer back. */
  unvote: (turnId: string) =>
    sendJson<{ feedback: null }>("DELETE", `/api/agent/turns/${encodeURIComponent(turnId)}/feedback`),
  /** The user's Approve (true) or Deny (false) on a call of their running turn that waits for it. */
  confirm: (turnId: string, callId: string, approve: boolean) =>
    sendJson<ConfirmCallResult>("POST", `/api/agent/turns/${encodeURIComponent(turnId)}/confirm`, {
      callId,
      approve,
    } satisfies ConfirmCallInput),
  /** True when this server stopped the turn; false when it is not running here (409). */
  stop: async (turnId: string): Promise<boolean> => {
    const res = await fetch(`/api/agent/turns/${encodeURIComponent(turnId)}/stop`, { method: "POST" });
    return res.status === 202;
  },
};
