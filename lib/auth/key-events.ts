import "server-only";
import { sql } from "drizzle-orm";
import Redis from "ioredis";
import postgres, { type Sql } from "postgres";
import type { Executor } from "@/db";
import { countFailure } from "@/lib/core/errors/failures";
import { log } from "@/lib/core/process/log";
import { processSlot } from "@/lib/core/process/process-state";

/**
 * Revocations that every instance's key cache must see at once: a key revoked, or a tenant disabled or
 * re-enabled. Sent with PostgreSQL NOTIFY inside the transaction that makes the change (delivered on commit,
 * never for a rollback), and published on Redis after the commit when REDIS_URL is set. Each process listens
 * on Redis when it has REDIS_URL, else on PostgreSQL; with PGlite there is one process, which invalidates its
 * own cache directly.
 */
export type KeyEvent =
  | { kind: "key"; keyId: string }
  | { kind: "tenant"; tenantId: string }
  /** Forget everything (a message that could not be read may have been a revocation). */
  | { kind: "all" };

/** What a listener feeds: a key cache. */
export interface KeyEventSink {
  apply(event: KeyEvent): void;
  /** The listener's connection is up (revocations arrive) or down (they may be missed). */
  watching(up: boolean): void;
}

export const KEY_EVENTS_CHANNEL = "tollgate_key_events";
/** The connection name listeners use, so an operator (or a test) can find them. */
export const KEY_EVENTS_CLIENT_NAME = "tollgate-key-events";

export type KeyEventsOptions = { postgresUrl?: string; redisUrl?: string; redisPrefix?: string };

export function keyEventsOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): KeyEventsOptions {
  return {
    postgresUrl: env.DATABASE_URL?.trim() || undefined,
    redisUrl: env.REDIS_URL?.trim() || undefined,
    redisPrefix: env.REDIS_PREFIX ?? "tollgate:",
  };
}

const redisChannel = (prefix = "tollgate:") => `${prefix}key-events`;

function parseEvent(payload: string): KeyEvent {
  try {
    const e = JSON.parse(payload) as Partial<{ kind: string; keyId: string; tenantId: string }>;
    if (e.kind === "key" && typeof e.keyId === "string") return { kind: "key", keyId: e.keyId };
    if (e.kind === "tenant" && typeof e.tenantId === "string")
      return { kind: "tenant", tenantId: e.tenantId };
  } catch {}
  return { kind: "all" };
}

/** Inside the revoking transaction: NOTIFY, which PostgreSQL delivers to every listener when it commits. */
export async function notifyInTransaction(tx: Executor, event: KeyEvent): Promise<void> {
  await tx.execute(sql`select pg_notify(${KEY_EVENTS_CHANNEL}, ${JSON.stringify(event)})`);
}

type Bus = { redis?: { client: Redis; channel: string }; stop?: () => Promise<void> };
// Once per process: Next builds a bundle per route, and a revocation in one must reach the cache another reads.
const bus = (): Bus => processSlot<Bus>("keys.events", () => ({}));

/** After the revoking transaction committed: other instances hear of it on Redis, when REDIS_URL is set. */
export async function publishKeyEvent(event: KeyEvent): Promise<void> {
  const b = bus();
  if (!b.redis) return;
  try {
    await b.redis.client.publish(b.redis.channel, JSON.stringify(event));
  } catch (error) {
    countFailure("pipeline");
    log.error(
      { err: error, event },
      "could not publish a key revocation on Redis; other instances see it late",
    );
  }
}

/**
 * Starts this process's revocation feed for `cache` (the process's key cache), once: a listener on Redis or
 * PostgreSQL, or, with PGlite (one process per data directory), in-process invalidation only. Returns a stop.
 */
export function startKeyEvents(
  cache: KeyEventSink,
  options: KeyEventsOptions = keyEventsOptionsFromEnv(),
): () => Promise<void> {
  const b = bus();
  if (b.stop) return b.stop;
  if (options.redisUrl) {
    const client = new Redis(options.redisUrl, { maxRetriesPerRequest: 2, lazyConnect: true });
    client.on("error", (err) => log.warn({ err }, "redis (key revocation publisher) connection error"));
    b.redis = { client, channel: redisChannel(options.redisPrefix) };
  }
  let listener: KeyEventListener | null = null;
  if (options.redisUrl || options.postgresUrl) listener = listenForKeyEvents(cache, options);
  // In-process invalidation reaches every cache of the only process: nothing can be missed.
  else cache.watching(true);
  b.stop = async () => {
    b.stop = undefined;
    await listener?.stop();
    const redis = b.redis;
    b.redis = undefined;
    await redis?.client.quit().catch(() => redis.client.disconnect());
  };
  return b.stop;
}

export type KeyEventListener = { ready: Promise<void>; stop(): Promise<void> };

/** Listens on Redis when a URL is given, else on PostgreSQL; reconnects for ever, telling the sink up and down. */
export function listenForKeyEvents(
  sink: KeyEventSink,
  options: KeyEventsOptions,
  timing: { heartbeatMs?: number; retryMs?: number } = {},
): KeyEventListener {
  if (options.redisUrl)
    return listenOnRedis(sink, options.redisUrl, redisChannel(options.redisPrefix), timing);
  if (options.postgresUrl) return listenOnPostgres(sink, options.postgresUrl, timing);
  throw new Error("listenForKeyEvents needs a PostgreSQL or a Redis URL");
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });

function listenOnPostgres(
  sink: KeyEventSink,
  url: string,
  { heartbeatMs = 10_000, retryMs = 1_000 }: { heartbeatMs?: number; retryMs?: number },
): KeyEventListener {
  const stopping = new AbortController();
  let markReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => {
    markReady = resolve;
  });
  const run = async () => {
    let failures = 0;
    while (!stopping.signal.aborted) {
      let client: Sql | undefined;
      let onClosed: () => void = () => {};
      const closed = new Promise<"closed">((resolve) => {
        onClosed = () => resolve("closed");
      });
      try {
        // A connection of its own: LISTEN holds it for ever, and the pool's connections come and go.
        client = postgres(url, {
          max: 1,
          idle_timeout: 0,
          max_lifetime: null,
          connect_timeout: 5,
          fetch_types: false,
          onnotice: () => {},
          connection: { application_name: KEY_EVENTS_CLIENT_NAME },
          ...hooks({
            onnotify: (_channel, payload) => sink.apply(parseEvent(payload)),
            onclose: () => onClosed(),
          }),
        });
        await client.unsafe(`listen ${KEY_EVENTS_CHANNEL}`);
        sink.watching(true);
        markReady();
        if (failures) log.info("key revocation listener reconnected to PostgreSQL");
        failures = 0;
        // A drop is noticed by the close event or, for a silent one, by the next heartbeat failing.
        for (;;) {
          const woke = await Promise.race([closed, sleep(heartbeatMs, stopping.signal)]);
          if (woke === "closed" || stopping.signal.aborted) break;
          await heartbeat(client);
        }
      } catch (error) {
        if (!stopping.signal.aborted) log.warn({ err: error }, "key revocation listener lost PostgreSQL");
      }
      sink.watching(false);
      await client?.end({ timeout: 0 }).catch(() => undefined);
      if (!stopping.signal.aborted) await sleep(Math.min(retryMs * 2 ** failures++, 10_000), stopping.signal);
    }
  };
  const done = run();
  return {
    ready,
    async stop() {
      stopping.abort();
      await done;
    },
  };
}

// postgres-js reads these two options (its own listen() is built on them) but its types do not declare them.
type ConnectionHooks = {
  onnotify: (channel: string, payload: string) => void;
  onclose: (connectionId: number) => void;
};
const hooks = (h: ConnectionHooks): object => h;

async function heartbeat(client: Sql): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      client`select 1`,
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error("heartbeat timed out")), 5_000);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

function listenOnRedis(
  sink: KeyEventSink,
  url: string,
  channel: string,
  { heartbeatMs = 10_000 }: { heartbeatMs?: number },
): KeyEventListener {
  let markReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => {
    markReady = resolve;
  });
  // Subscribed by hand on every (re)connect, so "watching" is only claimed once the subscription is confirmed.
  const sub = new Redis(url, {
    lazyConnect: true,
    autoResubscribe: false,
    maxRetriesPerRequest: null,
    connectionName: `${KEY_EVENTS_CLIENT_NAME}-${process.pid}`,
    retryStrategy: (times) => Math.min(100 * 2 ** times, 5_000),
  });
  sub.on("message", (_channel: string, payload: string) => sink.apply(parseEvent(payload)));
  sub.on("ready", () => {
    sub
      .subscribe(channel)
      .then(() => {
        sink.watching(true);
        markReady();
      })
      .catch((err: unknown) => {
        log.warn({ err }, "key revocation listener could not subscribe on Redis");
        sub.disconnect(true);
      });
  });
  sub.on("close", () => sink.watching(false));
  sub.on("error", (err) => log.warn({ err }, "key revocation listener: redis connection error"));
  sub.connect().catch(() => undefined);
  // A connection that died without a word is found by a ping that gets no answer.
  const timer = setInterval(() => {
    if (sub.status !== "ready") return;
    const deadline = setTimeout(() => sub.disconnect(true), 5_000);
    sub
      .ping()
      .catch(() => sub.disconnect(true))
      .finally(() => clearTimeout(deadline));
  }, heartbeatMs);
  timer.unref();
  return {
    ready,
    async stop() {
      clearInterval(timer);
      sub.removeAllListeners("close");
      sink.watching(false);
      await sub.quit().catch(() => sub.disconnect());
    },
  };
}
