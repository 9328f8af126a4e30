// The Redis the servers count in (the Redis run): reached directly by the benchmark, never through the proxy.
import Redis from "ioredis";

export class BenchRedis {
  private readonly redis: Redis;
  private reached = false;

  constructor(
    url: string,
    /** Every key the run's servers write starts with it (their REDIS_PREFIX); `flush` deletes them. */
    readonly prefix: string,
  ) {
    this.redis = new Redis(url, { maxRetriesPerRequest: 1, lazyConnect: true, connectTimeout: 5000 });
    this.redis.on("error", () => {});
  }

  /** Its version; fails with a clear message when it cannot be reached. */
  async version(): Promise<string> {
    try {
      await this.redis.connect();
      this.reached = true;
      const info = await this.redis.info("server");
      return `Redis ${/redis_version:(\S+)/.exec(info)?.[1] ?? "?"}`;
    } catch (error) {
      throw new Error(
        `cannot reach Redis at BENCH_REDIS_URL: ${error instanceof Error ? error.message : error}`,
      );
    }
  }

  /** The tenant's daily budget counters, summed (nano-dollars); null when there are none. */
  async budgetCounter(tenantId: string): Promise<number | null> {
    const keys = await this.keys(`${this.prefix}c:${tenantId}:usd:tenant:${tenantId}:d:*`);
    if (!keys.length) return null;
    const values = await this.redis.mget(...keys);
    return values.reduce((s, v) => s + Number(v ?? 0), 0);
  }

  /** Deletes every key of the run, then lets go of the connection. */
  async flush(): Promise<void> {
    try {
      if (!this.reached) return;
      const keys = await this.keys(`${this.prefix}*`);
      for (let i = 0; i < keys.length; i += 500) await this.redis.del(...keys.slice(i, i + 500));
    } finally {
      this.redis.disconnect();
    }
  }

  private async keys(pattern: string): Promise<string[]> {
    const found: string[] = [];
    let cursor = "0";
    do {
      const [next, batch] = await this.redis.scan(cursor, "MATCH", pattern, "COUNT", 1000);
      cursor = next;
      found.push(...batch);
    } while (cursor !== "0");
    return found;
  }
}
