/**
 * Process-wide governance counters, read by /api/health. Next gives every route bundle (and instrumentation) its
 * own copy of this module, so the state lives once per process (lib/core/process-state): every copy of the
 * module counts into, and reads from, the same holder.
 */
import { processSlot } from "../process/process-state";

/** Governance writes that failed in this process (shown on /api/health); the replies they belonged to went out. */
export type GovernanceFailures = { ledger: number; audit: number; conversation: number; pipeline: number };

/** What a batching recorder reports about its backlog (see BatchedGovernanceRecorder.stats). */
export type BatchLag = {
  /** Calls started and not ended yet: their rows join the backlog when they end. */
  callsInProgress: number;
  /** Ended calls whose rows are not in the database yet (queued or being written). */
  rowsWaiting: number;
  /** Age of the oldest of them, in ms (0 when none wait). */
  oldestAgeMs: number;
  batchesInFlight: number;
  /** Calls waiting for room in a full backlog (their replies wait with them). */
  callsWaitingForRoom: number;
  rowsWritten: number;
  rowsFailed: number;
  /** Calls refused with 503 because the backlog stayed full past the wait deadline. */
  callsRefused: number;
  limits: { maxRows: number; maxAgeMs: number; writers: number };
};

/** Something that writes governance rows in batches: flushed on shutdown, its lag shown on /api/health. */
export type Batcher = { name: string; flush(): Promise<void>; stats(): BatchLag };

type Holder = {
  failures: GovernanceFailures;
  /** Values (ledger rows, audit events, messages…) that held a NUL or a lone surrogate and were cleaned. */
  cleaned: { values: number };
  batchers: Map<string, Batcher>;
};

const holder = processSlot<Holder>("governance.health", () => ({
  failures: { ledger: 0, audit: 0, conversation: 0, pipeline: 0 },
  cleaned: { values: 0 },
  batchers: new Map(),
}));

/** The live failure counters (the same object in every copy of this module). */
export const governanceFailures: GovernanceFailures = holder.failures;

export function countFailure(kind: keyof GovernanceFailures, n = 1): void {
  holder.failures[kind] += n;
}

export function countCleaned(n = 1): void {
  holder.cleaned.values += n;
}

export function cleanedValues(): number {
  return holder.cleaned.values;
}

/** Registers the process's batching recorder under a name (a later one with the same name replaces it). */
export function registerBatcher(batcher: Batcher): void {
  holder.batchers.set(batcher.name, batcher);
}

export function batchers(): Batcher[] {
  return [...holder.batchers.values()];
}
