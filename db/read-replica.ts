import "server-only";
import { sql } from "drizzle-orm";
import type { Sql } from "postgres";
import type { Database, DatabaseDeadlines, DatabaseHandle } from "./client";
import { databaseDeadlinesFromEnv, deadlineOptions, errorText, redactUrl, rowsOf } from "./client";
import * as schema from "./schema";
import { SILENT_SERVER_CODE, silentServerWatch } from "./silent-server";

/** Why a read went to the primary although a replica is configured. */
export type FallbackReason = "unreachable" | "lagging";

/** Where a read went, and how old what it read may be. */
export type ReadSource = {
  db: Database;
  source: "replica" | "primary";
  /** How far behind the primary the replica was at its last check (ms); 0 on the primary. */
  lagMs: number;
  /** Set when the replica's data may be older than `staleMs`: everything the primary had committed by then. */
  asOf: Date | null;
};

export type ReadRouterOptions = {
  /** Past this lag the pages say "as of" (default 5 s). */
  staleMs: number;
  /** Past this lag reads go to the primary (default 60 s). */
  maxLagMs: number;
  /** How often the replica's position is checked, at most (default 1 s; checked when a read needs it). */
  checkMs: number;
  /** How long a replica that failed is left alone before it is tried again (default 5 s). */
  retryMs: number;
  /** A check unanswered after this long is a failure (default 1 s). */
  timeoutMs: number;
};

export type ReadRouterHooks = {
  /** One line when the replica starts or stops being used (`reason` when it stops). */
  onChange?: (usable: boolean, detail: { reason?: FallbackReason; lagMs?: number; error?: string }) => void;
};

export type ReadStats = {
  configured: boolean;
  usingReplica: boolean;
  lagSeconds: number | null;
  fallbacks: Record<FallbackReason, number>;
};

/** The reads' defaults, and the environment's overrides (DATABASE_READ_*). */
export function readRouterOptionsFromEnv(
  env: Record<string, string | undefined> = process.env,
): ReadRouterOptions {
  const ms = (name: string, fallback: number) => {
    const raw = env[name]?.trim();
    if (!raw) return fallback;
    const n = Number(raw);
    if (!Number.isFinite(n) || n < 0)
      throw new Error(`${name} must be a number of milliseconds (got "${raw}")`);
    return n;
  };
  return {
    staleMs: ms("DATABASE_READ_STALE_MS", 5_000),
    maxLagMs: ms("DATABASE_READ_MAX_LAG_MS", 60_000),
    checkMs: 1_000,
    retryMs: 5_000,
    timeoutMs: 1_000,
  };
}

/** "16/B374D848" → a number that orders like the LSN. */
export function lsnValue(lsn: string): bigint {
  const [hi, lo] = lsn.split("/");
  return (BigInt(`0x${hi}`) << 32n) + BigInt(`0x${lo}`);
}

/** Errors that say the replica cannot answer (gone, restarting, a query cancelled by recovery), not a bad query. */
export function isReplicaFailure(error: unknown, depth = 0): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  // Drizzle wraps the driver's error ("Failed query", the driver's error as its cause).
  const cause = (error as { cause?: unknown } | null)?.cause;
  if (typeof code !== "string")
    return (
      error instanceof ReplicaUnavailableError ||
      (depth < 3 && cause != null && isReplicaFailure(cause, depth + 1))
    );
  return (
    code.startsWith("08") || // connection exceptions
    code.startsWith("57P") || // admin shutdown, crash shutdown, cannot connect now
    code === "40001" || // cancelled: conflict with recovery
    code.startsWith("CONNECT") || // postgres-js: CONNECT_TIMEOUT, CONNECTION_CLOSED, _ENDED, _DESTROYED
    code === "ECONNREFUSED" ||
    code === "ECONNRESET" ||
    code === "EPIPE" ||
    code === "ETIMEDOUT" ||
    code === SILENT_SERVER_CODE || // the hung-connection deadline dropped it
    code === "ACQUIRE_TIMEOUT" // every connection to it busy past the deadline
  );
}

export class ReplicaUnavailableError extends Error {
  readonly tollgateReplica = true;
  override name = "ReplicaUnavailableError";
}

/** The primary's position at a moment: the replica holds everything committed then once it replayed `lsn`. */
type Mark = { lsn: bigint; at: number };

/**
 * Reads for the admin pages, exports, suggestions and the copilot's governance tools from a streaming replica
 * (`DATABASE_READ_URL`), the primary for everything else. The replica's lag is measured against positions of the
 * primary's WAL this router saw and when it saw them: a replica that has replayed a position the primary had
 * at time t holds every row committed by t, so "as of t" is a promise, not an estimate (a quiet primary is 0
 * behind, whatever the age of its last transaction). Past `maxLagMs`, or while the replica fails, reads go to
 * the primary (counted, and one log line per change); a read that fails on the replica is tried once on the
 * primary (`read`).
 */
export class ReadRouter {
  private usable = true;
  private downUntil = 0;
  private checkedAt = 0;
  private lagMs = 0;
  private checking: Promise<void> | null = null;
  private readonly marks: Mark[] = [];
  private readonly fallbacks: Record<FallbackReason, number> = { unreachable: 0, lagging: 0 };
  private reason: FallbackReason | null = null;

  constructor(
    private readonly primary: () => Promise<DatabaseHandle>,
    private readonly replica: { db: Database; client: Sql | null; label: string } | null,
    private readonly options: ReadRouterOptions,
    private readonly hooks: ReadRouterHooks = {},
    private readonly now: () => number = Date.now,
  ) {}

  get configured(): boolean {
    return this.replica !== null;
  }

  /** Where the next read goes, checking the replica's position first when the last check is old. */
  async source(): Promise<ReadSource> {
    const primary = async (): Promise<ReadSource> => ({
      db: (await this.primary()).db,
      source: "primary",
      lagMs: 0,
      asOf: null,
    });
    if (!this.replica) return primary();
    const t = this.now();
    if (t < this.downUntil) return this.fellBack("unreachable", primary);
    if (t - this.checkedAt >= this.options.checkMs) {
      this.checking ??= this.check().finally(() => {
        this.checking = null;
      });
      await this.checking;
    }
    if (!this.usable) return this.fellBack(this.reason ?? "unreachable", primary);
    const lagMs = this.lagMs;
    return {
      db: this.replica.db,
      source: "replica",
      lagMs,
      asOf: lagMs > this.options.staleMs ? new Date(this.now() - lagMs) : null,
    };
  }

  /**
   * Runs a read where `source` says; when it fails because the replica cannot answer, the replica is set aside
   * for `retryMs` and the read runs once more on the primary.
   */
  async read<T>(fn: (from: ReadSource) => Promise<T>): Promise<T> {
    const from = await this.source();
    try {
      return await fn(from);
    } catch (error) {
      if (from.source !== "replica" || !isReplicaFailure(error)) throw error;
      this.setAside(error);
      return fn(await this.source());
    }
  }

  /** The replica failed a read: set aside until `retryMs` has passed. */
  setAside(error: unknown): void {
    this.downUntil = this.now() + this.options.retryMs;
    this.checkedAt = 0;
    this.change(false, "unreachable", { error: errorText(error) });
  }

  /** The primary's database, for a read that must see what the replica may not have yet. */
  async primaryDb(): Promise<Database> {
    return (await this.primary()).db;
  }

  stats(): ReadStats {
    return {
      configured: this.configured,
      usingReplica: this.configured && this.usable && this.now() >= this.downUntil,
      lagSeconds: this.configured ? this.lagMs / 1000 : null,
      fallbacks: { ...this.fallbacks },
    };
  }

  async close(): Promise<void> {
    await this.replica?.client?.end({ timeout: 5 });
  }

  private async fellBack(reason: FallbackReason, primary: () => Promise<ReadSource>) {
    this.fallbacks[reason]++;
    return primary();
  }

  /** The replica's replayed position against the primary's marks: its lag, and whether it is usable. */
  private async check(): Promise<void> {
    const replica = this.replica!;
    try {
      const primary = await this.primary();
      const [here, there] = await withTimeout(
        Promise.all([
          primary.db.execute<{ lsn: string }>(sql`select pg_current_wal_flush_lsn()::text as lsn`),
          replica.db.execute<{ recovery: boolean; lsn: string | null; age: number | null }>(
            sql`select pg_is_in_recovery() as recovery,
              coalesce(pg_last_wal_replay_lsn(), pg_current_wal_lsn())::text as lsn,
              (extract(epoch from clock_timestamp() - pg_last_xact_replay_timestamp()) * 1000)::float8 as age`,
          ),
        ]),
        this.options.timeoutMs,
      );
      const at = this.now();
      const primaryLsn = lsnValue(rowsOf<{ lsn: string }>(here)[0]!.lsn);
      const { lsn: replayed, age } = rowsOf<{ lsn: string | null; age: number | null }>(there)[0]!;
      this.remember({ lsn: primaryLsn, at });
      const lastCommit = age === null || !Number.isFinite(Number(age)) ? null : at - Math.max(0, Number(age));
      this.lagMs = this.lagAt(replayed === null ? 0n : lsnValue(replayed), at, lastCommit);
      this.checkedAt = at;
      if (this.lagMs > this.options.maxLagMs) this.change(false, "lagging", { lagMs: this.lagMs });
      else this.change(true);
    } catch (error) {
      this.downUntil = this.now() + this.options.retryMs;
      this.checkedAt = 0;
      this.change(false, "unreachable", { error: errorText(error) });
    }
  }

  /**
   * Keeps the primary's marks of the last `maxLagMs` (and a little), at most one per 100 ms: a replica that has
   * passed none of them is at least that far behind, so it is left for the primary anyway.
   */
  private remember(mark: Mark): void {
    const last = this.marks[this.marks.length - 1];
    if (last && mark.at - last.at < 100 && this.marks.length > 1) this.marks[this.marks.length - 1] = mark;
    else this.marks.push(mark);
    const horizon = mark.at - this.options.maxLagMs - this.options.checkMs - 1_000;
    let drop = 0;
    while (drop < this.marks.length - 1 && this.marks[drop]!.at < horizon) drop++;
    if (drop) this.marks.splice(0, drop);
  }

  /**
   * How old the replica's data may be: 0 when it has replayed the primary's latest mark. Behind it, the replica
   * holds everything committed by the newest mark it has passed, and by its last replayed commit (`lastCommit`,
   * the primary's commit time: every earlier commit comes before it in the WAL); the fresher of the two. With
   * neither (the first check, nothing replayed since the replica started) it is at least as old as the oldest mark.
   */
  private lagAt(replayed: bigint, at: number, lastCommit: number | null): number {
    const latest = this.marks[this.marks.length - 1]!;
    if (replayed >= latest.lsn) return 0;
    let passed: number | null = null;
    for (let i = this.marks.length - 2; i >= 0; i--) {
      if (replayed >= this.marks[i]!.lsn) {
        passed = this.marks[i]!.at;
        break;
      }
    }
    const asOf = Math.max(passed ?? Number.NEGATIVE_INFINITY, lastCommit ?? Number.NEGATIVE_INFINITY);
    return Number.isFinite(asOf) ? Math.max(0, at - asOf) : at - this.marks[0]!.at;
  }

  private change(usable: boolean, reason?: FallbackReason, detail: { lagMs?: number; error?: string } = {}) {
    if (usable === this.usable && (usable || reason === this.reason)) return;
    this.usable = usable;
    this.reason = usable ? null : (reason ?? null);
    this.hooks.onChange?.(usable, { reason, ...detail });
  }
}

/** A router on the replica `url`, or one that always reads from the primary when `url` is empty. */
export async function openReadRouter(
  primary: () => Promise<DatabaseHandle>,
  url: string | undefined,
  options: ReadRouterOptions,
  hooks: ReadRouterHooks = {},
  deadlines: DatabaseDeadlines = databaseDeadlinesFromEnv(),
): Promise<ReadRouter> {
  const target = url?.trim();
  if (!target) return new ReadRouter(primary, null, options, hooks);
  if (!/^postgres(ql)?:\/\//.test(target))
    throw new Error(
      `DATABASE_READ_URL must start with postgres:// or postgresql:// (got ${redactUrl(target)})`,
    );
  const { default: postgres } = await import("postgres");
  const { drizzle } = await import("drizzle-orm/postgres-js");
  // Connected lazily: a replica down at start-up is a fallback, not a failed start. The primary's deadlines hold
  // here too (statement timeout, connect timeout, the hung-connection watch): a replica that hangs fails its reads
  // within them, and the pages fall back to the primary.
  const client = postgres(target, {
    max: 5,
    idle_timeout: 60,
    ...deadlineOptions(deadlines, silentServerWatch(deadlines)),
    // A replica that cannot be reached is a fallback to the primary: given up on sooner than the primary is.
    connect_timeout: Math.min(deadlines.connectTimeoutMs, 5_000) / 1000,
  });
  const db = drizzle(client, { schema }) as unknown as Database;
  return new ReadRouter(primary, { db, client, label: redactUrl(target) }, options, hooks);
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ReplicaUnavailableError(`no answer in ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
