import "server-only";
import { randomUUID } from "node:crypto";
import { z } from "zod";
import { log } from "@/lib/core/process/log";
import { postgresTransport, redisTransport, type Transport, type TransportTiming } from "./transport";

/**
 * The channels a bus listens on: `cluster` carries the bus's own messages (an envelope naming their kind and
 * sender); `key-events` the key-revocation feed, whose payloads PostgreSQL sends from inside the revoking
 * transaction (lib/auth/key-events.ts), so they stay bare.
 */
export const CLUSTER_CHANNEL = "cluster";
export const KEY_EVENTS_RAW_CHANNEL = "key-events";
const CHANNELS = [CLUSTER_CHANNEL, KEY_EVENTS_RAW_CHANNEL] as const;
export type RawChannel = (typeof CHANNELS)[number];

/** The connection name of a bus's listener (application_name, Redis CLIENT SETNAME), so an operator can find it. */
export const CLUSTER_CLIENT_NAME = "tollgate-bus";

/** PostgreSQL refuses a NOTIFY payload of 8000 bytes or more; the bus sends less, and reads no more. */
export const MAX_PAYLOAD_BYTES = 7_800;
/** How long an ask waits for the instance that has the thing asked about (a Stop, a decision). */
export const DEFAULT_ASK_TIMEOUT_MS = 1_000;
/** Asks waiting at once; more are answered "nobody" at once rather than held. */
const MAX_PENDING_ASKS = 1_000;

export type ClusterBusOptions = TransportTiming & {
  postgresUrl?: string;
  redisUrl?: string;
  redisPrefix?: string;
  /** This process on the bus (default: a fresh id); its own messages are not handed back to it. */
  instanceId?: string;
  /** The listener connection's name (default CLUSTER_CLIENT_NAME). */
  clientName?: string;
};

/** Redis when REDIS_URL is set, else PostgreSQL when DATABASE_URL is, else this process alone (PGlite). */
export function clusterOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): ClusterBusOptions {
  return {
    postgresUrl: env.DATABASE_URL?.trim() || undefined,
    redisUrl: env.REDIS_URL?.trim() || undefined,
    redisPrefix: env.REDIS_PREFIX ?? "tollgate:",
  };
}

/** A one-way message kind: every other instance hears it. */
export type Topic<T> = { kind: string; body: z.ZodType<T> };
/** A question kind: every other instance hears it; the one it concerns answers, the others stay silent. */
export type Ask<Q, R> = { kind: string; body: z.ZodType<Q>; reply: z.ZodType<R> };

export const topic = <T>(kind: string, body: z.ZodType<T>): Topic<T> => ({ kind, body });
export const ask = <Q, R>(kind: string, body: z.ZodType<Q>, reply: z.ZodType<R>): Ask<Q, R> => ({
  kind,
  body,
  reply,
});

const REPLY = "reply";
const id = z.string().min(1).max(64);
/** Every message on the cluster channel. Fields a later version adds are dropped; a kind nobody serves is ignored. */
const envelope = z.object({
  v: z.literal(1),
  kind: z.string().min(1).max(64),
  from: id,
  /** An ask's id; a reply's `re` names it and `to` the instance that asked. */
  id: id.optional(),
  re: id.optional(),
  to: id.optional(),
  body: z.unknown(),
});
type Envelope = z.infer<typeof envelope>;

type Handler = (body: unknown, from: string) => void;
type Server = (body: unknown, from: string) => unknown;
type Pending = { reply: z.ZodType<unknown>; settle: (value: unknown) => void };

/**
 * The process's line to the other instances of the deployment: PostgreSQL LISTEN/NOTIFY (DATABASE_URL), Redis
 * pub/sub (REDIS_URL, preferred when both are set), or nothing (the embedded database: one process, so nobody to
 * tell). One listening connection, reconnecting for ever; payloads bounded (`MAX_PAYLOAD_BYTES`) and validated
 * (zod) on arrival, unknown kinds ignored; each instance has an id and never hears its own messages. Delivery is
 * at most once and only to instances listening at the time: a message is a hint that makes a replica act sooner
 * (stop a turn, apply a decision, skip a failing deployment), never the only record of a fact.
 *
 * Built by the composition root (one per process, started by start-up); a test may hold several, one per replica.
 */
export class ClusterBus {
  readonly instanceId: string;
  readonly via: "postgres" | "redis" | "local";
  private transport: Transport | null = null;
  private readonly raw = new Map<string, Set<(payload: string) => void>>();
  private readonly statusListeners = new Set<(up: boolean) => void>();
  private readonly handlers = new Map<string, { body: z.ZodType<unknown>; listeners: Set<Handler> }>();
  private readonly servers = new Map<
    string,
    { body: z.ZodType<unknown>; reply: z.ZodType<unknown>; serve: Server }
  >();
  private readonly pending = new Map<string, Pending>();
  private closed = false;

  constructor(private readonly options: ClusterBusOptions = {}) {
    this.instanceId = options.instanceId ?? randomUUID();
    this.via = options.redisUrl ? "redis" : options.postgresUrl ? "postgres" : "local";
  }

  /** Opens the listening connection (once; again after close() it does nothing). */
  start(): this {
    if (this.transport || this.closed) return this;
    const hooks = {
      message: (channel: string, payload: string) => this.receive(channel, payload),
      status: (up: boolean) => {
        for (const listener of this.statusListeners) listener(up);
      },
    };
    const clientName = this.options.clientName ?? CLUSTER_CLIENT_NAME;
    const timing = { heartbeatMs: this.options.heartbeatMs, retryMs: this.options.retryMs };
    if (this.options.redisUrl)
      this.transport = redisTransport(this.options.redisUrl, CHANNELS, hooks, {
        ...timing,
        clientName,
        prefix: this.options.redisPrefix,
      });
    else if (this.options.postgresUrl)
      this.transport = postgresTransport(this.options.postgresUrl, CHANNELS, hooks, {
        ...timing,
        clientName,
      });
    else {
      this.transport = { ready: Promise.resolve(), up: true, publish: async () => {}, close: async () => {} };
      hooks.status(true);
    }
    return this;
  }

  get started(): boolean {
    return this.transport !== null;
  }

  /** Resolves once the bus listens (at once for the local one); never, if it is not started. */
  get ready(): Promise<void> {
    return this.transport?.ready ?? new Promise(() => {});
  }

  /**
   * Waits up to `ms` for the bus to listen: true once it does, false if it did not in time (it goes on trying,
   * and says when it comes up). A process says it is ready only after this, so a message another instance sends
   * once it is ready (a cooldown, a Stop, a revoked key) is not missed for want of a subscription.
   */
  async listening(ms: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), ms);
    });
    try {
      return await Promise.race([this.ready.then(() => true as const), late]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Whether messages reach this process now (always, alone). */
  get isUp(): boolean {
    return this.transport?.up ?? false;
  }

  /** Whether another instance can hear this one now: a shared transport, connected. */
  get reachesOthers(): boolean {
    return this.via !== "local" && this.isUp;
  }

  /** Told each time the listener comes up or goes down (and at once, when it is up already). */
  onStatus(listener: (up: boolean) => void): () => void {
    this.statusListeners.add(listener);
    if (this.isUp) listener(true);
    return () => this.statusListeners.delete(listener);
  }

  /** The bare payloads of a raw channel (the key-revocation feed), this process's own included. */
  onRaw(channel: RawChannel, listener: (payload: string) => void): () => void {
    const set = this.raw.get(channel) ?? new Set();
    this.raw.set(channel, set);
    set.add(listener);
    return () => set.delete(listener);
  }

  /** Sends a bare payload on a raw channel; false when it was too large, or could not be sent. */
  async publishRaw(channel: RawChannel, payload: string): Promise<boolean> {
    if (!this.transport || this.via === "local") return false;
    if (Buffer.byteLength(payload) > MAX_PAYLOAD_BYTES) {
      log.error({ channel, bytes: Buffer.byteLength(payload) }, "cluster message too large: not sent");
      return false;
    }
    try {
      await this.transport.publish(channel, payload);
      return true;
    } catch (error) {
      log.warn({ err: error, channel }, "could not send a cluster message");
      return false;
    }
  }

  /** Listens for a kind of message from the other instances. */
  on<T>(kind: Topic<T>, listener: (body: T, from: string) => void): () => void {
    const entry = this.handlers.get(kind.kind) ?? { body: kind.body, listeners: new Set<Handler>() };
    this.handlers.set(kind.kind, entry);
    const handler = listener as Handler;
    entry.listeners.add(handler);
    return () => entry.listeners.delete(handler);
  }

  /** Tells the other instances; false when nobody could be told (alone, down, or the body did not fit). */
  async emit<T>(kind: Topic<T>, body: T): Promise<boolean> {
    const valid = kind.body.safeParse(body);
    if (!valid.success) return false;
    return this.send({ v: 1, kind: kind.kind, from: this.instanceId, body: valid.data });
  }

  /**
   * Answers a kind of question from the other instances: `serve` gives the reply, or undefined when the question
   * is not about something here (then this instance says nothing). One server per kind.
   */
  serve<Q, R>(kind: Ask<Q, R>, serve: (body: Q, from: string) => R | undefined): () => void {
    if (this.servers.has(kind.kind)) throw new Error(`${kind.kind} is served already`);
    this.servers.set(kind.kind, { body: kind.body, reply: kind.reply, serve: serve as Server });
    return () => this.servers.delete(kind.kind);
  }

  /**
   * Asks the other instances and resolves with the first reply, or undefined when none came within `timeoutMs`
   * (and at once when nobody can hear: alone, not started, or down).
   */
  async ask<Q, R>(
    kind: Ask<Q, R>,
    body: Q,
    { timeoutMs = DEFAULT_ASK_TIMEOUT_MS } = {},
  ): Promise<R | undefined> {
    // A question no instance could be asked (an id longer than any real one) has no answer anywhere.
    const valid = kind.body.safeParse(body);
    if (!valid.success || !this.reachesOthers || this.pending.size >= MAX_PENDING_ASKS) return undefined;
    const askId = randomUUID();
    let timer: NodeJS.Timeout | undefined;
    const answered = new Promise<R | undefined>((resolve) => {
      const settle = (value: unknown) => {
        clearTimeout(timer);
        this.pending.delete(askId);
        resolve(value as R | undefined);
      };
      timer = setTimeout(() => settle(undefined), timeoutMs);
      this.pending.set(askId, { reply: kind.reply as z.ZodType<unknown>, settle });
    });
    const sent = await this.send({
      v: 1,
      kind: kind.kind,
      from: this.instanceId,
      id: askId,
      body: valid.data,
    });
    if (!sent) this.pending.get(askId)?.settle(undefined);
    return answered;
  }

  /** Closes the connections; asks still waiting are answered "nobody". */
  async close(): Promise<void> {
    this.closed = true;
    for (const pending of [...this.pending.values()]) pending.settle(undefined);
    const transport = this.transport;
    this.transport = null;
    await transport?.close();
  }

  private send(message: Envelope): Promise<boolean> {
    return this.publishRaw(CLUSTER_CHANNEL, JSON.stringify(message));
  }

  private receive(channel: string, payload: string): void {
    // Redis would carry more than PostgreSQL may send: nothing larger than a NOTIFY is read.
    if (payload.length > MAX_PAYLOAD_BYTES) return;
    if (channel !== CLUSTER_CHANNEL) {
      for (const listener of this.raw.get(channel) ?? []) listener(payload);
      return;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(payload);
    } catch {
      log.warn("cluster message that is not JSON: ignored");
      return;
    }
    const message = envelope.safeParse(parsed);
    if (!message.success) {
      log.warn({ issues: message.error.issues.length }, "cluster message without a valid envelope: ignored");
      return;
    }
    const m = message.data;
    // This process acted on its own message before it sent it.
    if (m.from === this.instanceId) return;
    if (m.kind === REPLY) {
      this.receiveReply(m);
      return;
    }
    const server = this.servers.get(m.kind);
    if (server && m.id) {
      this.answer(server, m);
      return;
    }
    const handler = this.handlers.get(m.kind);
    // A kind nobody here knows: a newer version's message during a rolling deploy, or another kind's peer.
    if (!handler) return;
    const body = handler.body.safeParse(m.body);
    if (!body.success) {
      log.warn({ kind: m.kind }, "cluster message with an invalid body: ignored");
      return;
    }
    for (const listener of handler.listeners) {
      try {
        listener(body.data, m.from);
      } catch (error) {
        log.error({ err: error, kind: m.kind }, "a cluster message's handler failed");
      }
    }
  }

  private answer(
    server: { body: z.ZodType<unknown>; reply: z.ZodType<unknown>; serve: Server },
    m: Envelope,
  ) {
    const body = server.body.safeParse(m.body);
    if (!body.success) {
      log.warn({ kind: m.kind }, "cluster question with an invalid body: ignored");
      return;
    }
    let reply: unknown;
    try {
      reply = server.serve(body.data, m.from);
    } catch (error) {
      log.error({ err: error, kind: m.kind }, "a cluster question's server failed");
      return;
    }
    if (reply === undefined) return;
    const valid = server.reply.safeParse(reply);
    if (!valid.success) {
      log.error({ kind: m.kind }, "a cluster question's server gave an invalid reply: not sent");
      return;
    }
    void this.send({ v: 1, kind: REPLY, from: this.instanceId, to: m.from, re: m.id, body: valid.data });
  }

  private receiveReply(m: Envelope): void {
    if (m.to !== this.instanceId || !m.re) return;
    const pending = this.pending.get(m.re);
    if (!pending) return;
    const reply = pending.reply.safeParse(m.body);
    if (reply.success) pending.settle(reply.data);
    else log.warn("cluster reply with an invalid body: ignored");
  }
}

/** How long a start waits for the cluster bus to listen before it serves anyway (the bus keeps reconnecting). */
export const LISTEN_BEFORE_READY_MS = 5_000;

/** A process's start: waits (bounded) for the bus to listen before the process says it is ready. */
export async function listenBeforeReady(bus: ClusterBus, ms = LISTEN_BEFORE_READY_MS): Promise<void> {
  if (!(await bus.listening(ms)))
    log.warn({ waitedMs: ms }, "cluster bus not listening yet: serving without it until it connects");
}
