import "server-only";
import { and, eq, gt, lt } from "drizzle-orm";
import type Redis from "ioredis";
import type { Database } from "@/db";
import { responseCache, usageCounter } from "@/db/schema";
import type { ChatResponse } from "@/lib/gateway/types";
import { viaRedis } from "./redis";

/** What a cache hit replays: the answer and who first gave it (the cost and timings are the hit's own). */
export type CachedAnswer = {
  message: ChatResponse["message"];
  finishReason: ChatResponse["finishReason"];
  servedProvider: string | null;
  servedAdapter: ChatResponse["stamp"]["servedAdapter"];
  servedModel: string | null;
  /** A /v1 wire call's answer as its caller received it (the JSON body, or the stream's frames). */
  wire?: { bytes: string[]; dropped: string[] };
};

export interface ResponseCacheStore {
  get(tenantId: string, key: string): Promise<CachedAnswer | null>;
  set(tenantId: string, key: string, model: string, answer: CachedAnswer, ttlSeconds: number): Promise<void>;
}

/** The cache as rows of `response_cache`; expired rows are never served and are swept by maintenance. */
export class PostgresResponseCache implements ResponseCacheStore {
  constructor(private readonly db: () => Promise<Database>) {}

  async get(tenantId: string, key: string): Promise<CachedAnswer | null> {
    const [row] = await (await this.db())
      .select({ response: responseCache.response })
      .from(responseCache)
      .where(
        and(
          eq(responseCache.tenantId, tenantId),
          eq(responseCache.key, key),
          gt(responseCache.expiresAt, new Date()),
        ),
      )
      .limit(1);
    return (row?.response as CachedAnswer | undefined) ?? null;
  }

  async set(tenantId: string, key: string, model: string, answer: CachedAnswer, ttlSeconds: number) {
    const expiresAt = new Date(Date.now() + ttlSeconds * 1000);
    await (await this.db())
      .insert(responseCache)
      .values({ tenantId, key, model, response: answer, expiresAt })
      .onConflictDoUpdate({
        target: [responseCache.tenantId, responseCache.key],
        set: { response: answer, model, expiresAt, createdAt: new Date() },
      });
  }
}

/** Deletes expired cache entries and counter windows from PostgreSQL (Redis expires its own keys). */
export async function sweepExpiredPipelineRows(db: Database, now = new Date()): Promise<number> {
  const cached = await db
    .delete(responseCache)
    .where(lt(responseCache.expiresAt, now))
    .returning({ key: responseCache.key });
  const counted = await db
    .delete(usageCounter)
    .where(lt(usageCounter.expiresAt, now))
    .returning({ key: usageCounter.key });
  return cached.length + counted.length;
}

export class RedisResponseCache implements ResponseCacheStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  async get(tenantId: string, key: string): Promise<CachedAnswer | null> {
    const text = await viaRedis(this.redis.get(`${this.prefix}r:${tenantId}:${key}`));
    return text ? (JSON.parse(text) as CachedAnswer) : null;
  }

  async set(tenantId: string, key: string, _model: string, answer: CachedAnswer, ttlSeconds: number) {
    await viaRedis(
      this.redis.set(`${this.prefix}r:${tenantId}:${key}`, JSON.stringify(answer), "EX", ttlSeconds),
    );
  }
}
