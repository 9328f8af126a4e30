import "server-only";
import { z } from "zod";
import { type ClusterBus, processBus, topic } from "@/lib/cluster";
import { log } from "@/lib/core/process/log";
import { processSlot } from "@/lib/core/process/process-state";
import type { GuardrailPolicy } from "@/lib/guardrails/types";

/** A tenant's policy was saved: every other instance drops its cached copy. */
export const GUARDRAILS_CHANGED = topic(
  "guardrails.changed",
  z.object({ tenantId: z.string().min(1).max(64) }),
);

/** How long a policy is trusted without hearing of a change: bus messages may be lost, so this is the backstop. */
export const GUARDRAIL_CACHE_MS = 5_000;

type Entry = { policy: GuardrailPolicy; until: number };

/**
 * Each tenant's policy as this process last read it, for every call's guardrail step: read once per tenant per
 * 5 s at most, concurrent misses sharing one read. A save here drops the entry at once; a save on another instance
 * arrives as GUARDRAILS_CHANGED on the cluster bus (listenTo) and drops it there, and should that message be lost,
 * the entry expires within GUARDRAIL_CACHE_MS.
 */
export class GuardrailPolicyCache {
  private readonly entries = new Map<string, Entry>();
  private readonly loading = new Map<string, Promise<GuardrailPolicy>>();
  // Bumped by every forget, so a read that started before a save is not cached as fresh after it.
  private generation = 0;
  private readonly buses = new WeakSet<ClusterBus>();

  constructor(private readonly ttlMs = GUARDRAIL_CACHE_MS) {}

  async get(
    tenantId: string,
    read: () => Promise<GuardrailPolicy>,
    now = Date.now(),
  ): Promise<GuardrailPolicy> {
    const hit = this.entries.get(tenantId);
    if (hit && hit.until > now) return hit.policy;
    const pending = this.loading.get(tenantId);
    if (pending) return pending;
    const generation = this.generation;
    const load = read()
      .then((policy) => {
        if (generation === this.generation) this.entries.set(tenantId, { policy, until: now + this.ttlMs });
        return policy;
      })
      .finally(() => {
        if (this.loading.get(tenantId) === load) this.loading.delete(tenantId);
      });
    this.loading.set(tenantId, load);
    return load;
  }

  /** Drops one tenant's cached policy (or every one). */
  forget(tenantId?: string): void {
    this.generation++;
    if (tenantId === undefined) {
      this.entries.clear();
      this.loading.clear();
      return;
    }
    this.entries.delete(tenantId);
    this.loading.delete(tenantId);
  }

  /** Hears other instances' saves on `bus` (once per bus); after the bus was down, forgets everything. */
  listenTo(bus: ClusterBus): void {
    if (this.buses.has(bus)) return;
    this.buses.add(bus);
    bus.on(GUARDRAILS_CHANGED, ({ tenantId }) => this.forget(tenantId));
    bus.onStatus((up) => {
      // Messages sent while the listener was down are lost: what was cached then may be stale.
      if (up) this.forget();
    });
  }
}

/** The process's cache, shared by every route bundle (Next builds one per route). */
export const processGuardrailCache = (): GuardrailPolicyCache =>
  processSlot("guardrails.policyCache", () => new GuardrailPolicyCache());

/** After a save committed: this process forgets the tenant's policy, and tells the other instances to. */
export async function announceGuardrailChange(
  tenantId: string,
  bus: ClusterBus | undefined = processBus(),
  cache: GuardrailPolicyCache = processGuardrailCache(),
): Promise<void> {
  cache.forget(tenantId);
  if (!bus?.reachesOthers) return;
  if (!(await bus.emit(GUARDRAILS_CHANGED, { tenantId })))
    log.warn(
      { tenantId },
      "could not tell the other instances of a guardrail change; they see it within 5 s",
    );
}
