import type { AgentEvent, TurnSummary } from "./events";

export type TurnSource = "drawer" | "api" | "schedule";

export type TurnStart = {
  turnId: string;
  tenantId: string;
  userId: string;
  /** null for API calls, which have no conversation. */
  conversationId: string | null;
  source: TurnSource;
  apiKeyId?: string;
  requestedModel: string;
  message: string;
  toolsOffered: string[];
  startedAt: Date;
};

/**
 * Watches turns for the ledger and the audit trail. The agent never lets an observer's failure reach the
 * user: implementations log and count their own errors.
 */
export interface TurnObserver {
  start(turn: TurnStart): Promise<void>;
  event(turnId: string, event: AgentEvent): void;
  end(summary: TurnSummary): Promise<void>;
}
