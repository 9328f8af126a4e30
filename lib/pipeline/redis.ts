import "server-only";
// The counter store's and response cache's Redis connection, with deadlines: a command unanswered within
// REDIS_COMMAND_TIMEOUT_MS fails (a black-holed Redis would otherwise hold every call), a connection not ready
// within REDIS_CONNECT_TIMEOUT_MS is retried, and a command issued while Redis is away waits for at most one
// reconnect (the offline queue is bounded by it) before failing. Failures reach callers as DependencyError.
import Redis, { ReplyError } from "ioredis";
import { DependencyError, markDependency } from "@/lib/core/errors/dependency";
import { log } from "@/lib/core/process/log";

export type RedisDeadlines = { commandTimeoutMs: number; connectTimeoutMs: number };

export function redisDeadlinesFromEnv(env: Record<string, string | undefined> = process.env): RedisDeadlines {
  const ms = (name: string, fallback: number) => {
    const value = Number(env[name]?.trim() || Number.NaN);
    return Number.isInteger(value) && value >= 50 ? value : fallback;
  };
  return {
    commandTimeoutMs: ms("REDIS_COMMAND_TIMEOUT_MS", 2_000),
    connectTimeoutMs: ms("REDIS_CONNECT_TIMEOUT_MS", 2_000),
  };
}

/** A Redis connection for the pipeline's stores; its state is tollgate_dependency_up{dependency="redis"}. */
export function openPipelineRedis(url: string, deadlines: RedisDeadlines): Redis {
  const redis = new Redis(url, {
    enableAutoPipelining: true,
    commandTimeout: deadlines.commandTimeoutMs,
    connectTimeout: deadlines.connectTimeoutMs,
    // A queued command fails after one failed reconnect instead of waiting for Redis to come back.
    maxRetriesPerRequest: 1,
    // Reconnects soon and keeps trying (at most a second apart), so calls succeed again as soon as Redis is back.
    retryStrategy: (times) => Math.min(50 * 2 ** times, 1_000),
  });
  redis.on("ready", () => markDependency("redis", true));
  redis.on("close", () => markDependency("redis", false));
  redis.on("error", (err) => log.error({ err }, "redis connection error"));
  return redis;
}

/**
 * A Redis command's answer; a failure that says Redis is away (not answering, not connected, gave up
 * reconnecting) becomes a DependencyError, so callers answer 503 and the metrics see Redis down. Redis's own
 * replies to a command (a script error, NOSCRIPT) pass unchanged.
 */
export async function viaRedis<T>(command: Promise<T>): Promise<T> {
  try {
    const answer = await command;
    markDependency("redis", true);
    return answer;
  } catch (error) {
    if (error instanceof ReplyError || !(error instanceof Error)) throw error;
    markDependency("redis", false);
    const code = (error as { code?: unknown }).code;
    const cause =
      typeof code === "string" && code
        ? code
        : error.message.includes("timed out")
          ? "COMMAND_TIMEOUT"
          : "CONNECTION";
    throw Object.assign(new DependencyError("redis", cause), { cause: error });
  }
}
