import "server-only";
import { mkdirSync } from "node:fs";
import path from "node:path";
import type { PGlite } from "@electric-sql/pglite";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import type { Sql } from "postgres";
import * as schema from "./schema";
import { silentServerWatch } from "./silent-server";

export type Schema = typeof schema;
/** The one database type the app codes against, whichever driver is behind it. */
export type Database = PgDatabase<PgQueryResultHKT, Schema>;
/** The database or an open transaction on it: what a query function that may run inside a transaction takes. */
export type Executor = Database | Parameters<Parameters<Database["transaction"]>[0]>[0];

export type DatabaseHandle = {
  kind: "postgres" | "pglite";
  db: Database;
  /** A short description safe to log (no password). */
  label: string;
  /** Runs `fn` while holding a Postgres session-level advisory lock (a no-op on single-connection PGlite). */
  withAdvisoryLock<T>(lockId: number, fn: () => Promise<T>): Promise<T>;
  /** Runs `fn` only if the lock is free right now; null when another session holds it. */
  tryAdvisoryLock<T>(lockId: number, fn: () => Promise<T>): Promise<T | null>;
  /**
   * Takes a session-level advisory lock and keeps it (on a connection of its own) until released or the
   * connection is lost; null when another session holds it. On PGlite (one process) it is held in the process.
   */
  holdAdvisoryLock(lockId: number): Promise<HeldLock | null>;
  /**
   * Runs `fn` on a connection of its own with no statement timeout (migrations, index rebuilds: work that may
   * rightly take minutes). The hung-connection deadline still holds. On PGlite it is the one connection.
   */
  withoutStatementTimeout<T>(fn: (db: Database) => Promise<T>): Promise<T>;
  close(): Promise<void>;
};

/** A lock kept by `holdAdvisoryLock`. */
export type HeldLock = {
  /** Whether the lock is still held (false once its connection is gone or it was released). */
  stillHeld(): Promise<boolean>;
  release(): Promise<void>;
};

/** The PostgreSQL deadlines (docs/operating.md#outages); milliseconds. */
export type DatabaseDeadlines = {
  /** The server cancels a statement running longer (57014). 0: none. */
  statementTimeoutMs: number;
  /** A connection that waited this long for any answer has the server probed on a fresh connection... */
  silenceMs: number;
  /** ...which must answer within this, else every connection is dropped and its queries fail. */
  probeMs: number;
  /** A new connection that is not ready within this fails (CONNECT_TIMEOUT). */
  connectTimeoutMs: number;
  /** A query that waited this long for a free connection of a full pool fails (ACQUIRE_TIMEOUT). 0: none. */
  acquireTimeoutMs?: number;
};

export type DatabaseOptions =
  | { kind: "postgres"; url: string; max?: number; deadlines?: Partial<DatabaseDeadlines> }
  | { kind: "pglite"; dataDir?: string /* omitted: in memory */ };

/** A start-up failure the operator can act on; printed as one line. */
export class DatabaseUnavailableError extends Error {
  override name = "DatabaseUnavailableError";
}

export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    return u.toString();
  } catch {
    return "(unparseable URL)";
  }
}

/** Chooses the database from the environment: DATABASE_URL, else embedded PGlite under PGLITE_DIR or .data/pglite. */
export function databaseOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): DatabaseOptions {
  const url = env.DATABASE_URL?.trim();
  if (url) return { kind: "postgres", url, deadlines: databaseDeadlinesFromEnv(env) };
  const dir = env.PGLITE_DIR?.trim() || path.join(process.cwd(), ".data", "pglite");
  return { kind: "pglite", dataDir: dir === "memory" ? undefined : dir };
}

const DEFAULT_DEADLINES: DatabaseDeadlines = {
  statementTimeoutMs: 15_000,
  silenceMs: 5_000,
  probeMs: 2_000,
  connectTimeoutMs: 10_000,
  acquireTimeoutMs: 10_000,
};

/**
 * DB_STATEMENT_TIMEOUT_MS, DB_SILENCE_MS, DB_PROBE_TIMEOUT_MS, DB_CONNECT_TIMEOUT_MS, DB_ACQUIRE_TIMEOUT_MS; a bad
 * value keeps the default.
 */
export function databaseDeadlinesFromEnv(
  env: Record<string, string | undefined> = process.env,
): DatabaseDeadlines {
  const ms = (name: string, fallback: number, min: number) => {
    const raw = env[name]?.trim();
    const value = raw ? Number(raw) : Number.NaN;
    return Number.isInteger(value) && value >= min ? value : fallback;
  };
  return {
    statementTimeoutMs: ms("DB_STATEMENT_TIMEOUT_MS", DEFAULT_DEADLINES.statementTimeoutMs, 0),
    silenceMs: ms("DB_SILENCE_MS", DEFAULT_DEADLINES.silenceMs, 100),
    probeMs: ms("DB_PROBE_TIMEOUT_MS", DEFAULT_DEADLINES.probeMs, 100),
    connectTimeoutMs: ms("DB_CONNECT_TIMEOUT_MS", DEFAULT_DEADLINES.connectTimeoutMs, 100),
    acquireTimeoutMs: ms("DB_ACQUIRE_TIMEOUT_MS", DEFAULT_DEADLINES.acquireTimeoutMs!, 0),
  };
}

/**
 * The postgres-js options that put `deadlines` on a client (the primary's pool and the read replica's): the connect
 * timeout, the statement timeout, the hung-connection watch, and a reconnect back-off of at most a second.
 */
export function deadlineOptions(
  deadlines: DatabaseDeadlines,
  watch: { socket: unknown },
  statementTimeoutMs = deadlines.statementTimeoutMs,
) {
  return {
    connect_timeout: deadlines.connectTimeoutMs / 1000,
    // The wait for a free connection of a full pool (an option of the vendored driver, vendor/README.md).
    ...({ acquire_timeout: (deadlines.acquireTimeoutMs ?? 0) / 1000 || null } as object),
    onnotice: () => {},
    // Sent in the start-up packet: no extra round trip, and it holds on every pooled connection.
    // idle_in_transaction_session_timeout: a session whose client vanished mid-transaction (its connection
    // dropped by the deadline while the network was away) lets go of its row locks within a minute.
    connection: { statement_timeout: statementTimeoutMs, idle_in_transaction_session_timeout: 60_000 },
    // Seconds before a connection that failed tries again: the default grows to 20 s after a few failures, which
    // would keep callers waiting long after the database is back.
    backoff: (retries: number) => Math.min(0.05 * 2 ** retries, 1),
    // A documented postgres-js option its types leave out.
    ...({ socket: watch.socket } as object),
  };
}

export async function openDatabase(options: DatabaseOptions): Promise<DatabaseHandle> {
  return options.kind === "postgres"
    ? openPostgres(options.url, options.max, { ...DEFAULT_DEADLINES, ...options.deadlines })
    : openPglite(options.dataDir);
}

async function openPostgres(
  url: string,
  max: number | undefined,
  deadlines: DatabaseDeadlines,
): Promise<DatabaseHandle> {
  const label = redactUrl(url);
  if (!/^postgres(ql)?:\/\//.test(url)) {
    throw new DatabaseUnavailableError(
      `DATABASE_URL must start with postgres:// or postgresql:// (got ${label})`,
    );
  }
  const { default: postgres } = await import("postgres");
  const { drizzle } = await import("drizzle-orm/postgres-js");
  const watch = silentServerWatch(deadlines);
  const connect = (size: number, statementTimeoutMs: number) =>
    postgres(url, { max: size, ...deadlineOptions(deadlines, watch, statementTimeoutMs) });
  let client: Sql;
  try {
    client = connect(max ?? 10, deadlines.statementTimeoutMs);
    await client`select 1`;
  } catch (error) {
    throw new DatabaseUnavailableError(`cannot reach the database at ${label}: ${errorText(error)}`);
  }
  const db = drizzle(client, { schema }) as unknown as Database;
  return {
    kind: "postgres",
    db,
    label,
    // Session-level locks on one reserved connection, so the work itself may use any pooled connection.
    withAdvisoryLock: async (lockId, fn) =>
      (await lockedOn(client, lockId, true, fn)) as Awaited<ReturnType<typeof fn>>,
    tryAdvisoryLock: (lockId, fn) => lockedOn(client, lockId, false, fn),
    holdAdvisoryLock: (lockId) => heldOn(() => connect(1, deadlines.statementTimeoutMs), lockId),
    withoutStatementTimeout: async (fn) => {
      const own = postgres(url, {
        max: 1,
        ...deadlineOptions({ ...deadlines, acquireTimeoutMs: 0 }, watch, 0),
      });
      try {
        return await fn(drizzle(own, { schema }) as unknown as Database);
      } finally {
        await own.end({ timeout: 5 });
      }
    },
    close: () => client.end({ timeout: 5 }),
  };
}

/** Runs `fn` holding advisory lock `lockId` (waiting for it, or giving up at once with null when `wait` is false). */
async function lockedOn<T>(
  client: Sql,
  lockId: number,
  wait: boolean,
  fn: () => Promise<T>,
): Promise<T | null> {
  const conn = await client.reserve();
  try {
    if (wait) {
      // Waiting for another process's migration may rightly outlast the statement timeout (reset below).
      await conn`set statement_timeout = 0`;
      await conn`select pg_advisory_lock(${lockId})`;
    } else {
      const [row] = await conn<{ ok: boolean }[]>`select pg_try_advisory_lock(${lockId}) as ok`;
      if (!row?.ok) return null;
    }
    try {
      return await fn();
    } finally {
      await conn`select pg_advisory_unlock(${lockId})`;
    }
  } finally {
    // Back to the pool with the connection's own timeout (a failure here means the connection is gone anyway).
    if (wait) await conn`reset statement_timeout`.catch(() => undefined);
    conn.release();
  }
}

/**
 * A session-level advisory lock kept on a one-connection client of its own (see DatabaseHandle.holdAdvisoryLock),
 * not on a reserved connection: postgres-js (3.4.9) throws an uncaught TypeError, ending the process, when a query
 * is written on a reserved connection whose socket has closed (porsager/postgres#1208), as the worker's did when its
 * connection was reset in an outage. A pooled connection that closed is opened again instead: a new session, which
 * holds nothing, so `stillHeld` answers false and the holder steps down.
 */
async function heldOn(open: () => Sql, lockId: number): Promise<HeldLock | null> {
  const conn = open();
  const end = () => conn.end({ timeout: 1 }).catch(() => undefined);
  try {
    const [row] = await conn<{ ok: boolean }[]>`select pg_try_advisory_lock(${lockId}) as ok`;
    if (!row?.ok) {
      await end();
      return null;
    }
  } catch (error) {
    await end();
    throw error;
  }
  let released = false;
  return {
    // Asked of pg_locks on the same session: a connection that was silently re-established holds nothing.
    stillHeld: async () => {
      if (released) return false;
      try {
        const [row] = await conn<{ held: boolean }[]>`
          select exists (select 1 from pg_locks where locktype = 'advisory' and pid = pg_backend_pid()
            and classid = 0 and objid = ${lockId} and objsubid = 1 and granted) as held`;
        return row?.held === true;
      } catch {
        return false;
      }
    },
    release: async () => {
      if (released) return;
      released = true;
      try {
        await conn`select pg_advisory_unlock(${lockId})`;
      } catch {
        // The connection is gone, and the lock with it.
      } finally {
        await end();
      }
    },
  };
}

async function openPglite(dataDir?: string): Promise<DatabaseHandle> {
  const { PGlite } = await import("@electric-sql/pglite");
  const { drizzle } = await import("drizzle-orm/pglite");
  let client: PGlite;
  try {
    if (dataDir) mkdirSync(dataDir, { recursive: true });
    client = await PGlite.create(dataDir ? { dataDir } : undefined);
  } catch (error) {
    throw new DatabaseUnavailableError(
      `cannot open the embedded database in ${dataDir ?? "memory"}: ${errorText(error)}`,
    );
  }
  const db = drizzle({ client, schema }) as unknown as Database;
  const held = new Set<number>();
  return {
    kind: "pglite",
    db,
    label: dataDir ? `embedded PGlite in ${dataDir}` : "embedded PGlite in memory",
    withAdvisoryLock: (_lockId, fn) => fn(),
    tryAdvisoryLock: (_lockId, fn) => fn(),
    // One process owns an embedded database: the lock is this handle's, held by whoever took it first.
    withoutStatementTimeout: (fn) => fn(db),
    holdAdvisoryLock: async (lockId) => {
      if (held.has(lockId)) return null;
      held.add(lockId);
      let released = false;
      return {
        stillHeld: async () => !released,
        release: async () => {
          if (!released) held.delete(lockId);
          released = true;
        },
      };
    },
    close: () => client.close(),
  };
}

/** An error as one line: its message, and its code when the message lacks it. */
export function errorText(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: string }).code;
    return code && !error.message.includes(code) ? `${error.message} (${code})` : error.message;
  }
  return String(error);
}

/** The SQLSTATE of a database error, whichever driver raised it (drizzle wraps the driver's error in `cause`). */
export function sqlState(error: unknown): string {
  for (let e = error, depth = 0; e && typeof e === "object" && depth < 4; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && /^[0-9A-Z]{5}$/.test(code)) return code;
    e = (e as { cause?: unknown }).cause;
  }
  return "";
}

/** The rows of `db.execute`, whichever driver answered (postgres-js: an array; PGlite: `{ rows }`). */
export function rowsOf<T>(result: unknown): T[] {
  return (Array.isArray(result) ? result : ((result as { rows?: unknown[] }).rows ?? [])) as T[];
}
