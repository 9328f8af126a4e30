import Redis from "ioredis";
import { getDb } from "@/db";
import { log } from "@/lib/core/log";
import { getGateway } from "@/lib/gateway";
import { PostgresResponseCache, RedisResponseCache, type ResponseCacheStore } from "./cache-store";
import { type CounterStore, PostgresCounters, RedisCounters } from "./counters";
import { Pipeline } from "./pipeline";

type Holder = {
  __tollgateStores?: { counters: CounterStore; cache: ResponseCacheStore; redis?: Redis };
  __tollgatePipeline?: Pipeline;
};
const holder = globalThis as Holder;

/** Counters and the response cache: in Redis when REDIS_URL is set, else in the app's PostgreSQL. */
export function pipelineStores(): { counters: CounterStore; cache: ResponseCacheStore } {
  if (!holder.__tollgateStores) {
    const url = process.env.REDIS_URL;
    if (url) {
      const redis = new Redis(url, { maxRetriesPerRequest: 2, enableAutoPipelining: true });
      redis.on("error", (err) => log.error({ err }, "redis connection error"));
      const prefix = process.env.REDIS_PREFIX ?? "tollgate:";
      holder.__tollgateStores = {
        redis,
        counters: new RedisCounters(redis, prefix),
        cache: new RedisResponseCache(redis, prefix),
      };
    } else {
      holder.__tollgateStores = {
        counters: new PostgresCounters(getDb),
        cache: new PostgresResponseCache(getDb),
      };
    }
  }
  return holder.__tollgateStores;
}

/** The process's pipeline over the app's database, gateway and shared counters. */
export function getPipeline(): Pipeline {
  holder.__tollgatePipeline ??= new Pipeline({
    db: getDb,
    gateway: getGateway,
    counters: () => pipelineStores().counters,
    cache: () => pipelineStores().cache,
  });
  return holder.__tollgatePipeline;
}
