import "server-only";
import { sql } from "drizzle-orm";
import type { Executor } from "@/db";
import {
  CLUSTER_CLIENT_NAME,
  ClusterBus,
  type ClusterBusOptions,
  clusterOptionsFromEnv,
  processBus,
  setProcessBus,
} from "@/lib/cluster";
import { KEY_EVENTS_RAW_CHANNEL } from "@/lib/cluster/bus";
import { postgresChannel } from "@/lib/cluster/transport";
import { countFailure } from "@/lib/core/errors/failures";
import { log } from "@/lib/core/process/log";
import { processSlot } from "@/lib/core/process/process-state";

/**
 * Revocations that every instance's key cache must see at once: a key revoked, or a tenant disabled or
 * re-enabled. Sent with PostgreSQL NOTIFY inside the transaction that makes the change (delivered on commit,
 * never for a rollback), and published on Redis after the commit when REDIS_URL is set. They ride the cluster
 * bus's listening connection (lib/cluster): on Redis when the process has REDIS_URL, else on PostgreSQL; with
 * PGlite there is one process, which invalidates its own cache directly.
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

export const KEY_EVENTS_CHANNEL = postgresChannel(KEY_EVENTS_RAW_CHANNEL);
/** The connection name listeners use, so an operator (or a test) can find them: the cluster bus's. */
export const KEY_EVENTS_CLIENT_NAME = CLUSTER_CLIENT_NAME;

export type KeyEventsOptions = Pick<ClusterBusOptions, "postgresUrl" | "redisUrl" | "redisPrefix">;

export function keyEventsOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): KeyEventsOptions {
  return clusterOptionsFromEnv(env);
}

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

/** After the revoking transaction committed: other instances hear of it on Redis, when that is the bus. */
export async function publishKeyEvent(event: KeyEvent): Promise<void> {
  const bus = processBus();
  if (bus?.via !== "redis") return;
  if (!(await bus.publishRaw(KEY_EVENTS_RAW_CHANNEL, JSON.stringify(event)))) {
    countFailure("pipeline");
    log.error({ event }, "could not publish a key revocation on Redis; other instances see it late");
  }
}

/** Feeds `sink` from the bus's revocation channel, and tells it when the bus goes up or down. Returns an undo. */
export function attachKeyEvents(bus: ClusterBus, sink: KeyEventSink): () => void {
  const offEvents = bus.onRaw(KEY_EVENTS_RAW_CHANNEL, (payload) => sink.apply(parseEvent(payload)));
  const offStatus = bus.onStatus((up) => sink.watching(up));
  return () => {
    offEvents();
    offStatus();
  };
}

type Feed = { stop?: () => Promise<void> };
// Once per process: Next builds a bundle per route, and a revocation in one must reach the cache another reads.
const feed = (): Feed => processSlot<Feed>("keys.events", () => ({}));

/**
 * Starts this process's revocation feed for `cache` (the process's key cache), once, on `source`: the process's
 * cluster bus (start-up's; started here if it was not), or options for a bus of the feed's own (a listener on
 * Redis or PostgreSQL, or, with PGlite, in-process invalidation only). The bus becomes the one revocations are
 * published on. Returns a stop.
 */
export function startKeyEvents(
  cache: KeyEventSink,
  source: ClusterBus | KeyEventsOptions = keyEventsOptionsFromEnv(),
): () => Promise<void> {
  const f = feed();
  if (f.stop) return f.stop;
  const own = !(source instanceof ClusterBus);
  const bus =
    source instanceof ClusterBus ? source : new ClusterBus({ ...source, clientName: KEY_EVENTS_CLIENT_NAME });
  const detach = attachKeyEvents(bus, cache);
  // In-process invalidation reaches every cache of the only process: nothing can be missed (the local bus is up).
  bus.start();
  setProcessBus(bus);
  f.stop = async () => {
    f.stop = undefined;
    detach();
    if (bus.via !== "local") cache.watching(false);
    if (processBus() === bus) setProcessBus(undefined);
    if (own) await bus.close();
  };
  return f.stop;
}

export type KeyEventListener = { ready: Promise<void>; stop(): Promise<void> };

/** Listens on Redis when a URL is given, else on PostgreSQL; reconnects for ever, telling the sink up and down. */
export function listenForKeyEvents(
  sink: KeyEventSink,
  options: KeyEventsOptions,
  timing: { heartbeatMs?: number; retryMs?: number } = {},
): KeyEventListener {
  if (!options.redisUrl && !options.postgresUrl)
    throw new Error("listenForKeyEvents needs a PostgreSQL or a Redis URL");
  const bus = new ClusterBus({ ...options, ...timing, clientName: KEY_EVENTS_CLIENT_NAME });
  const detach = attachKeyEvents(bus, sink);
  bus.start();
  return {
    ready: bus.ready,
    async stop() {
      detach();
      sink.watching(false);
      await bus.close();
    },
  };
}
