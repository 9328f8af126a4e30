import "server-only";
import Redis from "ioredis";
import postgres, { type Sql } from "postgres";
import { log } from "@/lib/core/process/log";

/**
 * How a bus's messages leave and reach the process: PostgreSQL LISTEN/NOTIFY over one connection of its own
 * (notifications go out on it too), or Redis pub/sub (a subscriber, and a publisher opened on first use). Both
 * reconnect for ever and say when they are up (subscribed: messages arrive) or down (they may be missed).
 */
export interface Transport {
  /** Resolves once the first connection listens. */
  readonly ready: Promise<void>;
  readonly up: boolean;
  /** Sends a payload on a channel (a logical name); rejects when it could not be handed to the server. */
  publish(channel: string, payload: string): Promise<void>;
  close(): Promise<void>;
}

export type TransportHooks = {
  message(channel: string, payload: string): void;
  status(up: boolean): void;
};

export type TransportTiming = { heartbeatMs?: number; retryMs?: number };

/** PostgreSQL's name of a logical channel: `key-events` → `tollgate_key_events`. */
export const postgresChannel = (channel: string) => `tollgate_${channel.replaceAll("-", "_")}`;
/** Redis's name of a logical channel, under the deployment's key prefix. */
export const redisChannel = (channel: string, prefix = "tollgate:") => `${prefix}${channel}`;

/** How long a heartbeat or a publish may take before the connection is judged dead. */
const ROUND_TRIP_LIMIT_MS = 5_000;

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

async function within<T>(ms: number, what: string, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      work,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what} timed out`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

export function postgresTransport(
  url: string,
  channels: readonly string[],
  hooks: TransportHooks,
  { clientName, heartbeatMs = 10_000, retryMs = 1_000 }: TransportTiming & { clientName: string },
): Transport {
  const byPostgresName = new Map(channels.map((c) => [postgresChannel(c), c]));
  const stopping = new AbortController();
  let current: Sql | null = null;
  let up = false;
  const setUp = (value: boolean) => {
    if (up === value) return;
    up = value;
    hooks.status(value);
  };
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
          connection: { application_name: clientName },
          ...connectionHooks({
            onnotify: (channel, payload) => {
              const name = byPostgresName.get(channel);
              if (name) hooks.message(name, payload);
            },
            onclose: () => onClosed(),
          }),
        });
        for (const channel of byPostgresName.keys()) await client.unsafe(`listen ${channel}`);
        current = client;
        setUp(true);
        markReady();
        if (failures) log.info({ client: clientName }, "cluster bus reconnected to PostgreSQL");
        failures = 0;
        // A drop is noticed by the close event or, for a silent one, by the next heartbeat failing.
        for (;;) {
          const woke = await Promise.race([closed, sleep(heartbeatMs, stopping.signal)]);
          if (woke === "closed" || stopping.signal.aborted) break;
          await within(ROUND_TRIP_LIMIT_MS, "heartbeat", client`select 1`);
        }
      } catch (error) {
        if (!stopping.signal.aborted) log.warn({ err: error }, "cluster bus lost PostgreSQL");
      }
      current = null;
      setUp(false);
      await client?.end({ timeout: 0 }).catch(() => undefined);
      if (!stopping.signal.aborted) await sleep(Math.min(retryMs * 2 ** failures++, 10_000), stopping.signal);
    }
  };
  const done = run();
  return {
    ready,
    get up() {
      return up;
    },
    async publish(channel, payload) {
      const client = current;
      if (!client) throw new Error("the cluster bus is not connected to PostgreSQL");
      await within(
        ROUND_TRIP_LIMIT_MS,
        "NOTIFY",
        client`select pg_notify(${postgresChannel(channel)}, ${payload})`,
      );
    },
    async close() {
      stopping.abort();
      // Ends the connection now, rather than at the next heartbeat.
      await current?.end({ timeout: 0 }).catch(() => undefined);
      await done;
    },
  };
}

// postgres-js reads these two options (its own listen() is built on them) but its types do not declare them.
type ConnectionHooks = {
  onnotify: (channel: string, payload: string) => void;
  onclose: (connectionId: number) => void;
};
const connectionHooks = (h: ConnectionHooks): object => h;

export function redisTransport(
  url: string,
  channels: readonly string[],
  hooks: TransportHooks,
  { clientName, prefix, heartbeatMs = 10_000 }: TransportTiming & { clientName: string; prefix?: string },
): Transport {
  const byRedisName = new Map(channels.map((c) => [redisChannel(c, prefix), c]));
  let up = false;
  const setUp = (value: boolean) => {
    if (up === value) return;
    up = value;
    hooks.status(value);
  };
  let markReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => {
    markReady = resolve;
  });
  // Subscribed by hand on every (re)connect, so "up" is only claimed once the subscription is confirmed.
  const sub = new Redis(url, {
    lazyConnect: true,
    autoResubscribe: false,
    maxRetriesPerRequest: null,
    connectionName: `${clientName}-${process.pid}`,
    retryStrategy: (times) => Math.min(100 * 2 ** times, 5_000),
  });
  sub.on("message", (channel: string, payload: string) => {
    const name = byRedisName.get(channel);
    if (name) hooks.message(name, payload);
  });
  sub.on("ready", () => {
    sub
      .subscribe(...byRedisName.keys())
      .then(() => {
        setUp(true);
        markReady();
      })
      .catch((err: unknown) => {
        log.warn({ err }, "cluster bus could not subscribe on Redis");
        sub.disconnect(true);
      });
  });
  sub.on("close", () => setUp(false));
  sub.on("error", (err) => log.warn({ err }, "cluster bus: redis subscriber connection error"));
  sub.connect().catch(() => undefined);
  // A connection that died without a word is found by a ping that gets no answer.
  const timer = setInterval(() => {
    if (sub.status !== "ready") return;
    const deadline = setTimeout(() => sub.disconnect(true), ROUND_TRIP_LIMIT_MS);
    sub
      .ping()
      .catch(() => sub.disconnect(true))
      .finally(() => clearTimeout(deadline));
  }, heartbeatMs);
  timer.unref();
  // A subscribed connection cannot publish: a second one, opened when the first message goes out.
  let publisher: Redis | null = null;
  const publisherOf = () => {
    if (!publisher) {
      publisher = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 2 });
      publisher.on("error", (err) => log.warn({ err }, "cluster bus: redis publisher connection error"));
    }
    return publisher;
  };
  return {
    ready,
    get up() {
      return up;
    },
    async publish(channel, payload) {
      await within(
        ROUND_TRIP_LIMIT_MS,
        "PUBLISH",
        publisherOf().publish(redisChannel(channel, prefix), payload),
      );
    },
    async close() {
      clearInterval(timer);
      sub.removeAllListeners("close");
      setUp(false);
      await sub.quit().catch(() => sub.disconnect());
      const pub = publisher as Redis | null;
      publisher = null;
      await pub?.quit().catch(() => pub.disconnect());
    },
  };
}
