// Which failures mean "a dependency is away" (the database or Redis refused, reset, hung up, or timed out) rather
// than a bug: those are answered 503 with Retry-After, in the caller's dialect, so clients that retry on 503 (the
// SDKs do) come back, where a 500 makes them give up. Classified by error codes (postgres-js, node:net, PostgreSQL
// SQLSTATE, ioredis), never by class names (production minifies them).

import { processSlot } from "../process/process-state";

export type Dependency = "database" | "redis";
export type DependencyFailure = { dependency: Dependency; cause: string };

/** Seconds a caller is told to wait before retrying while a dependency is away. */
export const DEPENDENCY_RETRY_AFTER_SECONDS = 2;

// node:net and postgres-js's own connection errors.
const NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EAI_AGAIN",
  "CONNECT_TIMEOUT",
  "CONNECTION_CLOSED",
  "CONNECTION_DESTROYED",
  "CONNECTION_ENDED",
  // The vendored postgres-js: no connection of the pool was free within DB_ACQUIRE_TIMEOUT_MS.
  "ACQUIRE_TIMEOUT",
  // The vendored postgres-js: a connection out of step with its session after an outage, dropped (retry).
  "CONNECTION_DESYNC",
  // db/silent-server.ts: the database left a query unanswered past its deadline and its connections were dropped.
  "DATABASE_SILENT",
]);
// PostgreSQL: class 08 (connection exception), 53300 too_many_connections, 57P01–57P03 (admin shutdown, crash
// shutdown, cannot connect now: a server stopping or starting), 57014 query_canceled (our statement timeout),
// 25006 read_only_sql_transaction (a promoted replica's old primary), 40001/40P01 are not here (retried in place).
const SQLSTATE_CODES = new Set(["53300", "57P01", "57P02", "57P03", "57014", "25006"]);
// ioredis: a command refused because the connection is down and offline queueing is off, or gave up retrying.
const REDIS_MESSAGES = [
  "Connection is closed",
  "Stream isn't writeable",
  "Reached the max retries per request",
];

/** Marks an error as a dependency's outage (a deadline of our own, e.g. a Redis call that took too long). */
export class DependencyError extends Error {
  readonly dependencyFailure: DependencyFailure;
  constructor(dependency: Dependency, cause: string, message = `${dependency} unavailable: ${cause}`) {
    super(message);
    this.dependencyFailure = { dependency, cause };
  }
}

type Inspectable = {
  code?: unknown;
  message?: unknown;
  cause?: unknown;
  dependencyFailure?: unknown;
  errors?: unknown;
};

/**
 * The dependency an error says is away, or null when it is something else. Follows `cause` (Drizzle wraps the
 * driver's error) and AggregateError's `errors` (a connect to several addresses) a few levels deep.
 */
export function dependencyFailure(error: unknown, depth = 0): DependencyFailure | null {
  if (!error || typeof error !== "object" || depth > 5) return null;
  const e = error as Inspectable;
  const marked = e.dependencyFailure as DependencyFailure | undefined;
  if (marked && typeof marked === "object" && typeof marked.dependency === "string") return marked;
  const code = typeof e.code === "string" ? e.code : "";
  const message = typeof e.message === "string" ? e.message : "";
  if (code && SQLSTATE_CODES.has(code)) return { dependency: "database", cause: code };
  if (code.length === 5 && code.startsWith("08")) return { dependency: "database", cause: code };
  if (REDIS_MESSAGES.some((m) => message.includes(m))) return { dependency: "redis", cause: "connection" };
  // A network error with no more said is the database's: the Redis paths mark their own (DependencyError).
  if (code && NETWORK_CODES.has(code)) return { dependency: "database", cause: code };
  if (Array.isArray(e.errors))
    for (const inner of e.errors.slice(0, 5)) {
      const found = dependencyFailure(inner, depth + 1);
      if (found) return found;
    }
  // Auth.js keeps the error its callback met as `cause.err` (a sign-in whose user lookup met the outage).
  const err = (e.cause as { err?: unknown } | null | undefined)?.err;
  return dependencyFailure(e.cause, depth + 1) ?? (err ? dependencyFailure(err, depth + 1) : null);
}

type Health = {
  /** Requests answered 503 because a dependency was away, by dependency and cause ("database:ECONNREFUSED"). */
  refusals: Map<string, number>;
  /** What the last check of each dependency found (readiness for the database, the counter store's ping for Redis). */
  up: Map<Dependency, boolean>;
};
// Once per process: Next gives each route bundle its own copy of this module.
const health = processSlot<Health>("dependency.health", () => ({ refusals: new Map(), up: new Map() }));

/** Counts a request refused (503) because a dependency was away; the metrics read it when scraped. */
export function countRefusal(failure: DependencyFailure): void {
  // Causes are codes from a fixed vocabulary (the sets above, or a caller's own), so the labels stay bounded.
  const key = `${failure.dependency}:${failure.cause.slice(0, 40)}`;
  if (health.refusals.size >= 100 && !health.refusals.has(key)) return;
  health.refusals.set(key, (health.refusals.get(key) ?? 0) + 1);
}

export function dependencyRefusals(): { dependency: Dependency; cause: string; count: number }[] {
  return [...health.refusals].map(([key, count]) => {
    const at = key.indexOf(":");
    return { dependency: key.slice(0, at) as Dependency, cause: key.slice(at + 1), count };
  });
}

/** Records whether a dependency answered its last check. */
export function markDependency(dependency: Dependency, up: boolean): void {
  health.up.set(dependency, up);
}

/** Each checked dependency and whether it answered its last check (unchecked ones are absent). */
export function dependencyStates(): [Dependency, boolean][] {
  return [...health.up];
}

/** What a caller is told while a dependency is away (its cause stays in the log). */
export const unavailableMessage = (dependency: Dependency) =>
  `the service is briefly unavailable (${dependency === "redis" ? "its counter store" : "its database"} is not answering); retry in a few seconds`;

export type OutageRefusal = DependencyFailure & { message: string; retryAfter: string };

/**
 * The 503 an error calls for when it says a dependency is away (counted for the metrics), or null when it is
 * something else. Every door (/api, /v1, /mcp) answers an outage through this, each in its own dialect.
 */
export function outageRefusal(error: unknown): OutageRefusal | null {
  const away = dependencyFailure(error);
  if (!away) return null;
  countRefusal(away);
  return {
    ...away,
    message: unavailableMessage(away.dependency),
    retryAfter: String(DEPENDENCY_RETRY_AFTER_SECONDS),
  };
}
