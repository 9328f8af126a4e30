// What GET /api/agent/turns/<id>/replay answers, shared by the route and the browser. Browser-safe: types only.
import type { RunSummary } from "@/features/admin-tables/contracts";
import type { ScoreSource, ScoreType } from "@/features/scores/contracts";

/** The turn's ledger row as the replay shows it (dates as ISO strings). */
export type ReplayTurn = {
  id: string;
  tenantId: string;
  tenantName: string | null;
  userId: string | null;
  userEmail: string | null;
  apiKeyId: string | null;
  apiKeyName: string | null;
  conversationId: string | null;
  source: string;
  status: string;
  requestedModel: string;
  servedProvider: string | null;
  servedAdapter: string | null;
  servedModel: string | null;
  attempts: number;
  fallbackIndex: number | null;
  /** The alias's routing strategy when it is not plain fallback. */
  routing: string | null;
  /** An images or audio call's billed units (images at a size and quality, seconds, characters). */
  units: {
    images?: number;
    imageSize?: string;
    imageQuality?: string;
    seconds?: number;
    characters?: number;
  } | null;
  inputTokens: number;
  cachedInputTokens: number;
  cacheWriteTokens: number;
  outputTokens: number;
  reasoningTokens: number;
  cost: string | null;
  costStatus: string;
  rounds: number;
  firstTokenMs: number | null;
  latencyMs: number | null;
  cacheHits: number;
  errorClass: string | null;
  errorMessage: string | null;
  endUser: string | null;
  /** The skills the turn loaded, in load order, each with the version it got. */
  skills: { name: string; version: number }[];
  toolTrace: { name: string; durationMs: number; ok: boolean; error?: string }[];
  startedAt: string;
};

/** One audit event of the turn (masked when it was written). */
export type ReplayEvent = {
  seq: number;
  type: string;
  createdAt: string;
  payload: Record<string, unknown>;
};

/**
 * The turn's events checked against their tenant-month audit chains: each event's hash recomputed and its link to
 * the event before it; "unchained" when they were written before hashing began.
 */
export type ReplayChain =
  | { state: "intact"; checked: number }
  | { state: "broken"; reason: "content" | "prev"; seq: number }
  | { state: "unchained" };

/** A score on the turn as the replay shows it: what, how much, why, and who said so. */
export type ReplayScore = {
  name: string;
  type: ScoreType;
  value: number | boolean | string | null;
  comment: string | null;
  source: ScoreSource;
  /** A person's email, an API key's name, or the evaluation run's id; null when the author is gone. */
  who: string | null;
  updatedAt: string;
};

export type ReplayResponse = {
  turn: ReplayTurn;
  /** People's feedback and the other scores of the turn, oldest first. */
  scores: ReplayScore[];
  /** In seq order. */
  events: ReplayEvent[];
  chain: ReplayChain;
  /** The turn that started just before this one, and just after, among the turns the viewer may see. */
  prev: string | null;
  next: string | null;
};

/** Where a turn that is no longer in the database went: its month's archive (the tenant's own only). */
export type ArchivedTurn = { tenantId: string; month: string; location: string; restoreCommand: string };

/** One call of a run as its replay shows it: the call's ledger row and audit trail, as a turn's replay has them. */
export type RunCall = { turn: ReplayTurn; events: ReplayEvent[] };

/** A run replayed: its totals and its calls in the order they started (the first RUN_REPLAY_CALLS of them). */
export type RunReplayResponse = {
  run: RunSummary;
  /** The scores on the run itself (its calls' are on each call's replay), oldest first. */
  scores: ReplayScore[];
  calls: RunCall[];
  /** More calls than the replay shows (the ledger page, filtered by the run id, lists them all). */
  truncated: boolean;
};
