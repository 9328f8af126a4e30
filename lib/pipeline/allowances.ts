import "server-only";
import { randomUUID } from "node:crypto";
import { countFailure } from "@/lib/core/errors/failures";
import { log } from "@/lib/core/process/log";
import { processSlot } from "@/lib/core/process/process-state";
import type { CounterStore, LeaseOp, LeaseReply } from "./counters";

/** One counter a call needs room on: `amount` is held for it while it runs (0: it only needs the counter not spent). */
export type AllowanceLine = { key: string; amount: number; limit: number | null; ttlSeconds: number };

export type Reservation =
  | {
      ok: true;
      /** Each counter's use as this process sees it, this call's reservation included (see Counter.used). */
      values: number[];
      /** The counter store did not answer: the call goes on what this process already holds, or unlimited. */
      degraded: boolean;
      /** Ends the reservation: what the call really used of each line (in the lines' order). */
      settle(actual: number[]): void;
    }
  | { ok: false; index: number; value: number; reason: "exhausted" | "unavailable" };

export type AllowanceOptions = {
  /** How long a lease counts as live in the store without news from its holder (ms). */
  leaseMs: number;
  /** How much use a lease is sized for: this process's recent rate times this (ms). */
  horizonMs: number;
  /** How often leases are renewed ahead of need, refreshed or given back (ms). */
  tickMs: number;
  /**
   * How long a counter's spend may wait in memory before it is settled (ms; 5 × `tickMs` unless set). Spend in
   * a held lease is already counted as used, so this only delays what other instances read as spent; settling
   * every counter every tick made each quiet counter (an end user's) a row written five times a second.
   */
  settleMs: number;
  /** A counter unused this long gives its allowance back (ms). */
  idleMs: number;
  /**
   * How long an unused counter keeps an allowance that is a small share of its room (no more than a lease may
   * be: room / (4 × (holders + 1))), so a quiet one (an end user calling every few seconds) still spends from
   * memory (ms). A larger share goes back after `idleMs`, for the other instances.
   */
  keepMs: number;
  /** How long a call under a hard limit waits for room that other instances hold leased (ms). */
  waitMs: number;
  /** A lease operation unanswered this long counts as lost: resent unchanged later (ms). */
  timeoutMs: number;
  instanceId: string;
  now: () => number;
};

const DEFAULTS: AllowanceOptions = {
  leaseMs: 15_000,
  horizonMs: 500,
  tickMs: 200,
  settleMs: 1_000,
  idleMs: 2_000,
  keepMs: 30_000,
  waitMs: 400,
  timeoutMs: 1_000,
  instanceId: "",
  now: () => performance.now(),
};

/**
 * The least a lease is sized for beyond what runs, in calls (each its largest reservation seen), when the room
 * allows it (the room's share caps it, as it caps every lease).
 */
const MIN_LEASE_CALLS = 32;

/** One counter as this process holds it. */
class Counter {
  /** Unspent allowance the store says this process holds (from the last answer). */
  held = 0;
  /** The counter in the store at the last answer: spent, plus every instance's unspent allowance. */
  value = 0;
  /** Unspent allowance of every live lease, and how many instances hold one (the last answer). */
  leased = 0;
  holders = 0;
  known = false;
  /** Spent by calls that ended, not yet settled in the store. */
  pending = 0;
  /** Held for calls running now. */
  inflight = 0;
  seq = 0;
  op: Promise<void> | null = null;
  /** The operation whose answer was lost: it is sent again as it was, so it is applied once. */
  retry: LeaseOp | null = null;
  failed = false;
  /** When the last operation on this counter started (the allowances' operation number). */
  lastOp = 0;
  lastUse = 0;
  lastSync = 0;
  /**
   * The most held at once for running calls since the last tick, and that peak decayed over ticks: a call
   * reserves its worst case, which can be far above what it spends, so an allowance sized on spend alone would
   * run short of the reservations of calls running together, and be renewed on nearly every call.
   */
  peakSince = 0;
  peak = 0;
  /**
   * A counter still learning its rate (new, or a new window) that ran short again: each renewal asks for twice
   * the last (like a TCP slow start), so a burst of calls is covered in a few operations, not one every few calls.
   */
  burst = 0;
  ranShort = false;
  /** The largest amount one call reserved on this counter (the floor of a lease: MIN_LEASE_CALLS of them). */
  largestNeed = 0;
  /** Use per ms, smoothed, and what was used since it was last updated. */
  rate = 0;
  usedSince = 0;
  rateAt = 0;

  constructor(
    readonly tenantId: string,
    readonly key: string,
    public limit: number | null,
    public ttlSeconds: number,
  ) {}

  get available(): number {
    return this.held - this.pending - this.inflight;
  }
  /**
   * The counter's use as this process sees it: exact for what runs here, and for every other instance as of
   * the last answer, counting what they hold leased as used (so it may be high by their unspent leases).
   */
  get used(): number {
    return this.value - this.available;
  }
  get room(): number {
    return this.limit === null ? Number.POSITIVE_INFINITY : Math.max(0, this.limit - this.value);
  }
  get busy(): boolean {
    return this.inflight > 0 || this.pending !== 0 || this.held > 0;
  }
}

/**
 * Leased allowances: every limit a call meets (requests, tokens or USD per window, per tenant, key or user) is
 * a counter in the shared store, and each process spends out of an allowance it leased from it, in memory, so a
 * governed call costs no round trip. A lease is granted in one atomic operation (tollgate_lease, or its Redis
 * script) that never lets the counter — spent plus every instance's unspent allowance — pass the limit, so the
 * sum over every replica cannot either; and never more than the room left divided by the instances that hold
 * live leases on it, so no replica starves the others. Near the limit the room shrinks and with it the leases,
 * down to a single call's need (its reservation): there it is exactly the reserve-before, settle-after of a
 * store without leases. docs/guides/governance.md#leased-allowances has the argument.
 *
 * Spend is settled within `settleMs` (and with every operation on its counter), leases renewed ahead of need (the
 * renewals asked for by the calls of one turn of the event loop in one statement), given back after
 * `idleMs` unused and at shutdown. An operation whose answer is lost is sent again as it was (same sequence
 * number): the store applies it once. A process that dies keeps its leases counted: the tenant loses at most
 * what they held unspent, never more, and never passes a limit.
 */
export class Allowances {
  readonly options: AllowanceOptions;
  private readonly counters = new Map<string, Counter>();
  private ops = 0;
  private timer: NodeJS.Timeout | null = null;
  /** Counters found low by calls of this turn of the event loop, renewed together (renewSoon). */
  private readonly renewals = new Set<Counter>();
  private renewing = false;
  private closed = false;
  /** The store's last operation failed: calls go on what is held (hard limits) or unlimited (soft ones). */
  degraded = false;

  constructor(
    private readonly store: CounterStore,
    options: Partial<AllowanceOptions> = {},
  ) {
    this.options = {
      ...DEFAULTS,
      ...options,
      settleMs: options.settleMs ?? 5 * (options.tickMs ?? DEFAULTS.tickMs),
      instanceId: options.instanceId || randomUUID(),
    };
  }

  /**
   * Holds each line's amount for a call, all or none: from what this process holds when it suffices (no round
   * trip), else after leasing more. Refused when a limited counter has no room for the call (`exhausted`) or
   * the store could not be asked and what is held does not cover it (`unavailable`: hard limits fail closed).
   */
  async reserve(tenantId: string, lines: AllowanceLine[]): Promise<Reservation> {
    const counters = lines.map((l) => this.counter(tenantId, l));
    const needs = new Map<Counter, number>();
    for (const [i, c] of counters.entries()) needs.set(c, (needs.get(c) ?? 0) + lines[i]!.amount);
    const started = this.ops;
    const deadline = this.options.now() + this.options.waitMs;
    for (;;) {
      const short: [Counter, number][] = [];
      for (const [c, amount] of needs) {
        const need = c.limit === null ? 0 : Math.max(amount, 1);
        // An unlimited counter only needs to be known (its use, for soft limits); a limited one, room.
        if (c.known && (c.limit === null || c.available >= need)) continue;
        if (c.known) c.ranShort = true;
        // No answer since this call began waiting: ask (or wait for the question already asked).
        if (c.op || c.lastOp <= started) {
          short.push([c, need]);
          continue;
        }
        if (c.failed) {
          if (c.limit === null) continue;
          return this.refusal(counters, c, "unavailable");
        }
        if (c.available + c.room >= need) {
          short.push([c, need]);
          continue;
        }
        // No room in the store now. Other instances may hold some leased that they will spend or give back:
        // wait for it a little, so a limit is not refused while part of it sits unused elsewhere.
        if (c.leased - c.held >= need - c.available && this.options.now() < deadline) {
          await sleep(Math.min(50, this.options.waitMs));
          short.push([c, need]);
          continue;
        }
        return this.refusal(counters, c, "exhausted");
      }
      if (!short.length) break;
      await this.sync(tenantId, short);
    }
    const now = this.options.now();
    for (const [c, amount] of needs) {
      c.inflight += amount;
      if (c.inflight > c.peakSince) c.peakSince = c.inflight;
      if (amount > c.largestNeed) c.largestNeed = amount;
      c.lastUse = now;
    }
    const values = counters.map((c) => c.used);
    const degraded = this.degraded;
    this.schedule();
    // Renewed ahead of need: the next calls find their allowance here.
    for (const c of needs.keys())
      if (c.limit !== null && !c.op && c.available < this.ahead(c) / 2) this.renewSoon(c);
    let settled = false;
    return {
      ok: true,
      values,
      degraded,
      settle: (actual) => {
        if (settled) return;
        settled = true;
        const at = this.options.now();
        for (const [i, c] of counters.entries()) {
          const used = actual[i] ?? lines[i]!.amount;
          c.pending += used;
          c.usedSince += used;
          c.lastUse = at;
        }
        for (const [c, amount] of needs) c.inflight -= amount;
        this.schedule();
      },
    };
  }

  /** Settles every counter's spend now (the limits screen reads spend after it); answers once all are written. */
  async flush(): Promise<void> {
    for (let round = 0; round < 3; round++) {
      const owing = [...this.counters.values()].filter((c) => c.retry || c.pending !== 0);
      if (!owing.length) return;
      // An operation on its way may have left spend behind it: wait for it, then settle the rest.
      await Promise.all(owing.map((c) => c.op));
      const byTenant = new Map<string, [Counter, number][]>();
      for (const c of owing) if (!c.op && (c.retry || c.pending !== 0)) push(byTenant, c.tenantId, [c, 0]);
      await Promise.all([...byTenant].map(([tenantId, list]) => this.sync(tenantId, list)));
    }
  }

  /** Settles and gives back every allowance (at shutdown); later calls still work, leasing anew. */
  async release(): Promise<void> {
    this.closed = true;
    try {
      await this.flush();
      const byTenant = new Map<string, [Counter, number][]>();
      for (const c of this.counters.values()) if (c.held > 0 && !c.op) push(byTenant, c.tenantId, [c, -1]);
      await Promise.all([...byTenant].map(([tenantId, list]) => this.sync(tenantId, list)));
    } finally {
      this.closed = false;
    }
  }

  /** What this process holds, for /api/health and tests. */
  stats() {
    let held = 0;
    let pending = 0;
    let inflight = 0;
    for (const c of this.counters.values()) {
      held += c.held > 0 ? 1 : 0;
      pending += c.pending !== 0 ? 1 : 0;
      inflight += c.inflight;
    }
    return {
      counters: this.counters.size,
      leasesHeld: held,
      unsettled: pending,
      inflight,
      degraded: this.degraded,
    };
  }

  private counter(tenantId: string, line: AllowanceLine): Counter {
    const id = `${tenantId}\u0000${line.key}`;
    let c = this.counters.get(id);
    if (!c) {
      c = new Counter(tenantId, line.key, line.limit, line.ttlSeconds);
      this.counters.set(id, c);
    }
    // A limit changed by an admin applies from the next operation on.
    c.limit = line.limit;
    c.ttlSeconds = Math.max(c.ttlSeconds, line.ttlSeconds);
    return c;
  }

  /**
   * How much a lease is sized for beyond what runs: recent spend over the horizon plus the recent peak of
   * reservations held at once, less as the room runs out.
   */
  private ahead(c: Counter): number {
    if (c.limit === null || this.options.horizonMs <= 0) return 0;
    const byRate = Math.max(
      Math.ceil(c.rate * this.options.horizonMs) + Math.max(c.peak, c.peakSince),
      c.burst,
      // A quiet counter (one end user's of many, used by one call in fifty) would be sized for a call or two by
      // its rate, and renewed every few calls: a floor of a few calls' worth lets it spend from memory too.
      MIN_LEASE_CALLS * c.largestNeed,
    );
    return Math.max(0, Math.min(byRate, Math.floor(c.room / (4 * (c.holders + 1)))));
  }

  /**
   * Unused long enough to give its allowance back: `idleMs`, or `keepMs` while what it holds is a small share
   * of the room (keeping it deprives no other instance of more than a lease's share).
   */
  private idle(c: Counter, now: number): boolean {
    const unused = now - c.lastUse;
    if (unused <= this.options.idleMs) return false;
    const small = c.limit === null || c.held * 4 * (c.holders + 1) <= c.room;
    return !small || unused > this.options.keepMs;
  }

  /**
   * Renews a counter running low ahead of need, with the others that the calls of this turn of the event loop
   * found low: one statement per tenant, not one per call.
   */
  private renewSoon(c: Counter): void {
    this.renewals.add(c);
    if (this.renewing) return;
    this.renewing = true;
    setImmediate(() => {
      this.renewing = false;
      const byTenant = new Map<string, [Counter, number][]>();
      for (const r of this.renewals) if (!r.op) push(byTenant, r.tenantId, [r, 0]);
      this.renewals.clear();
      for (const [tenantId, list] of byTenant) void this.sync(tenantId, list);
    });
  }

  private refusal(counters: Counter[], c: Counter, reason: "exhausted" | "unavailable"): Reservation {
    return { ok: false, index: counters.indexOf(c), value: Math.max(0, c.used), reason };
  }

  /** Asks the store for each counter (joining an operation already on its way); never rejects. */
  private async sync(tenantId: string, list: [Counter, number][]): Promise<void> {
    const waits: Promise<void>[] = [];
    const fresh: [Counter, number][] = [];
    for (const item of list) {
      if (item[0].op) waits.push(item[0].op);
      else if (!fresh.some(([c]) => c === item[0])) fresh.push(item);
    }
    if (fresh.length) waits.push(this.run(tenantId, fresh));
    await Promise.all(waits);
  }

  /** One lease operation for these counters of one tenant: `need` < 0 gives everything unspent back. */
  private run(tenantId: string, items: [Counter, number][]): Promise<void> {
    const number = ++this.ops;
    const ops = items.map(([c, need]) => c.retry ?? this.operation(c, need));
    const done = (async () => {
      try {
        const replies = await withTimeout(
          this.store.lease(tenantId, this.options.instanceId, this.options.leaseMs, ops),
          this.options.timeoutMs,
        );
        const byKey = new Map<string, LeaseReply>(replies.map((r) => [r.key, r]));
        for (const [i, [c]] of items.entries()) {
          const reply = byKey.get(c.key);
          if (reply) this.answered(c, ops[i]!, reply);
        }
        if (this.degraded) log.info("counter store answers again: allowances are leased and settled");
        this.degraded = false;
      } catch (error) {
        for (const [i, [c]] of items.entries()) {
          c.retry = ops[i]!;
          c.failed = true;
        }
        if (!this.degraded) {
          countFailure("pipeline");
          log.error(
            { err: error },
            "counter store unavailable: calls go on the allowances held (hard limits), soft limits are not checked",
          );
        }
        this.degraded = true;
      } finally {
        for (const [c] of items) {
          c.op = null;
          c.lastOp = number;
          c.lastSync = this.options.now();
        }
      }
    })();
    for (const [c] of items) c.op = done;
    return done;
  }

  private operation(c: Counter, need: number): LeaseOp {
    c.seq += 1;
    const spent = c.pending;
    const keep = c.inflight;
    if (c.limit === null || need < 0)
      return {
        key: c.key,
        seq: c.seq,
        spent,
        need: 0,
        want: c.limit === null ? 0 : keep,
        limit: c.limit,
        ttlSeconds: c.ttlSeconds,
      };
    const idle = this.idle(c, this.options.now());
    if (need > 0 && c.ranShort && this.options.horizonMs > 0) c.burst = Math.max(need, c.burst * 2);
    const ahead = idle || this.closed ? 0 : this.ahead(c);
    return {
      key: c.key,
      seq: c.seq,
      spent,
      need: need > 0 ? keep + need : 0,
      want: keep + Math.max(need, ahead),
      limit: c.limit,
      ttlSeconds: c.ttlSeconds,
    };
  }

  private answered(c: Counter, op: LeaseOp, reply: LeaseReply): void {
    // Applied now, or by the first try of a retried operation: either way its spend is in the store.
    c.pending -= op.spent;
    c.held = reply.held;
    c.value = reply.value;
    c.leased = reply.leased;
    c.holders = reply.holders;
    c.known = true;
    c.failed = false;
    c.retry = null;
  }

  private schedule(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => this.tick(), this.options.tickMs);
    this.timer.unref();
  }

  /** Every tick: settle spend, update rates, renew or refresh leases, give back idle ones, forget old windows. */
  private tick(): void {
    this.timer = null;
    const now = this.options.now();
    const byTenant = new Map<string, [Counter, number][]>();
    let busy = false;
    for (const [id, c] of this.counters) {
      if (c.usedSince > 0 || c.inflight > 0 || c.peakSince > 0) {
        const elapsed = c.rateAt ? now - c.rateAt : this.options.tickMs;
        c.rate = c.rate * 0.5 + (c.usedSince / Math.max(elapsed, 1)) * 0.5;
        c.usedSince = 0;
        c.peak = Math.max(c.peakSince, Math.floor(c.peak / 2));
        c.peakSince = c.inflight;
        if (!c.ranShort) c.burst = Math.floor(c.burst / 2);
        c.ranShort = false;
      }
      // A quiet counter keeps what it learnt: traffic that pauses comes back at the same pace, and its first
      // calls find a lease sized for it (given back again if it stays quiet).
      c.rateAt = now;
      if (c.op) {
        busy = true;
        continue;
      }
      if (!c.busy && now - c.lastUse > this.options.idleMs && !c.retry) {
        // Nothing held, nothing owed: forget it (a later call starts afresh).
        if (now - c.lastUse > Math.max(this.options.idleMs * 4, 60_000)) this.counters.delete(id);
        continue;
      }
      busy = true;
      const stale = now - c.lastSync > this.options.leaseMs / 3;
      const owing = c.pending !== 0 && (now - c.lastSync >= this.options.settleMs || this.closed);
      if (c.retry || owing || stale) push(byTenant, c.tenantId, [c, 0]);
      else if (c.limit !== null && this.idle(c, now) && c.held > c.inflight)
        push(byTenant, c.tenantId, [c, -1]);
      else if (c.limit !== null && c.available < this.ahead(c) / 2) push(byTenant, c.tenantId, [c, 0]);
    }
    for (const [tenantId, list] of byTenant) void this.sync(tenantId, list);
    if (busy) this.schedule();
  }
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The store's answer, or a rejection after `ms`: a stalled store is then treated as one that failed, and the
 * operation is resent unchanged (its sequence number makes a late first try harmless).
 */
function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  if (!(ms > 0)) return promise;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the counter store did not answer in ${ms} ms`)), ms);
  });
  promise.catch(() => {});
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

// One manager per counter store and process: every route bundle's pipeline spends the same leases.
const managers = processSlot("pipeline.allowances", () => new WeakMap<CounterStore, Allowances>());
const everyManager = processSlot("pipeline.allowances.all", () => new Set<Allowances>());

/** The process's allowances on this store (made on first use, with options from the environment). */
export function allowancesOf(store: CounterStore): Allowances {
  let manager = managers.get(store);
  if (!manager) {
    manager = new Allowances(store, allowanceOptionsFromEnv());
    managers.set(store, manager);
    everyManager.add(manager);
  }
  return manager;
}

/**
 * What each counter holds spent, this process's spend settled first (exact here; another instance's last
 * `settleMs` of spend may not be in yet).
 */
export async function spentOn(store: CounterStore, tenantId: string, keys: string[]): Promise<number[]> {
  await allowancesOf(store).flush();
  return store.read(tenantId, keys);
}

/** Settles and gives back every allowance of this process (graceful shutdown), within `ms`. */
export async function releaseAllowances(ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    Promise.all([...everyManager].map((m) => m.release().catch(() => {}))),
    new Promise((resolve) => {
      timer = setTimeout(resolve, Math.max(0, ms));
    }),
  ]);
  clearTimeout(timer);
}

export function allowanceOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): Partial<AllowanceOptions> {
  const ms = (name: string) => {
    const raw = env[name]?.trim();
    if (!raw) return undefined;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < 0)
      throw new Error(`${name} must be a whole number of ms, not "${raw}"`);
    return value;
  };
  const options: Partial<AllowanceOptions> = {};
  const horizon = ms("TOLLGATE_LEASE_HORIZON_MS");
  if (horizon !== undefined) options.horizonMs = horizon;
  const wait = ms("TOLLGATE_LEASE_WAIT_MS");
  if (wait !== undefined) options.waitMs = wait;
  const timeout = ms("TOLLGATE_LEASE_TIMEOUT_MS");
  if (timeout !== undefined) options.timeoutMs = timeout;
  return options;
}
