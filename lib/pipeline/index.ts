import "server-only";
import type { Database } from "@/db";
import { PostgresResponseCache, RedisResponseCache, type ResponseCacheStore } from "./cache-store";
import { type CounterStore, PostgresCounters, RedisCounters } from "./counters";
import { openPipelineRedis, redisDeadlinesFromEnv } from "./redis";

export { Pipeline, type PipelineDeps } from "./pipeline";
export {
  notifyCrossings,
  onRunCeilingCrossed,
  type RunCeilingCrossing,
  type RunCeilingListener,
  runCeilingKey,
} from "./run-ceiling";

/** The shared counters and response cache, and how to let go of the connection they hold. */
export type PipelineStores = { counters: CounterStore; cache: ResponseCacheStore; close(): Promise<void> };

/** Counters and the response cache: in Redis when REDIS_URL is set, else in the app's PostgreSQL. */
export function pipelineStoresFromEnv(
  db: () => Promise<Database>,
  env: NodeJS.ProcessEnv = process.env,
): PipelineStores {
  const url = env.REDIS_URL;
  if (!url) {
    return {
      counters: new PostgresCounters(db),
      cache: new PostgresResponseCache(db),
      close: async () => {},
    };
  }
  const redis = openPipelineRedis(url, redisDeadlinesFromEnv(env));
  const prefix = env.REDIS_PREFIX ?? "tollgate:";
  return {
    counters: new RedisCounters(redis, prefix),
    cache: new RedisResponseCache(redis, prefix),
    close: async () => {
      redis.disconnect();
    },
  };
}
