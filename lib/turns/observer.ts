import type { TurnEvent, TurnSummary } from "./events";

/** Where a turn of the agent loop comes from; each belongs to a conversation. */
export type ChatTurnSource = "drawer" | "schedule";
/**
 * A call of its own (no conversation): a /v1 call, a prompt's playground run, an evaluation run's call, a tool
 * called over /mcp by an outside agent, or a guardrail's model check (an LLM judge's verdict on another call).
 */
export type CallTurnSource = "api" | "playground" | "eval" | "mcp" | "guardrail";
export type TurnSource = ChatTurnSource | CallTurnSource;

/** The stored prompt version a turn used (the prompt store); it lands on the ledger row. */
export type TurnPrompt = { name: string; version: number };

type TurnStartFields = {
  turnId: string;
  tenantId: string;
  userId: string;
  requestedModel: string;
  message: string;
  toolsOffered: string[];
  startedAt: Date;
  prompt?: TurnPrompt;
  /** The run the turn belongs to (lib/turns/run-id.ts): a caller's run id, or a drawer turn's own id. */
  runId?: string;
  /** What came with the user's message (context chips, attachments, the context text the model read); audited masked. */
  inputs?: Record<string, unknown>;
};

/** An edit-and-resend or a regenerate: the earlier turn whose messages this one supersedes. */
export type TurnReplacement = { turnId: string; action: "edit" | "regenerate" };

/** A turn of the agent loop (the drawer, a schedule): it reads and extends a conversation. */
export type ChatTurnStart = TurnStartFields & {
  source: ChatTurnSource;
  conversationId: string;
  apiKeyId?: never;
  replaces?: TurnReplacement;
};

/** One /v1 call: a turn of its own kind, with no conversation, made with a tenant's API key. */
export type ApiTurnStart = TurnStartFields & {
  source: CallTurnSource;
  conversationId: null;
  apiKeyId?: string;
  /** Who the calling app says asked, for spend attribution (stored masked on the ledger row). */
  attribution?: ApiAttribution;
};

/**
 * The end user and tags of an API call: OpenAI's `user` / Anthropic's `metadata.user_id`, or the
 * `x-tollgate-end-user` header (which wins); `x-tollgate-tags` (comma-separated); OpenAI's `metadata` map.
 */
export type ApiAttribution = {
  endUser: string | null;
  tags: string[];
  metadata: Record<string, string> | null;
};

/** How a turn begins; `source` tells the two kinds apart. */
export type TurnStart = ChatTurnStart | ApiTurnStart;

/**
 * Watches turns for the ledger and the audit trail. The agent never lets an observer's failure reach the
 * user: implementations log and count their own errors.
 */
export interface TurnObserver {
  start(turn: TurnStart): Promise<void>;
  event(turnId: string, event: TurnEvent): void;
  end(summary: TurnSummary): Promise<void>;
}
