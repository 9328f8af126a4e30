import "server-only";
import { sql } from "drizzle-orm";
import { getDatabase } from "@/db";
import { markDependency } from "@/lib/core/errors/dependency";
import { isDraining, isStarted } from "@/lib/core/process/lifecycle";
import { log } from "@/lib/core/process/log";
import { processSlot } from "@/lib/core/process/process-state";

/** Why a process is not ready; null when it is. */
export type NotReadyReason = "starting" | "draining" | "database unreachable";

export type Readiness = { ready: boolean; reason: NotReadyReason | null };

/** A cheap probe answers from a database check at most this old. */
const DATABASE_CHECK_TTL_MS = 1_000;

/** A `select 1` that has not answered by then counts as an unreachable database. */
export function databaseCheckTimeoutMs(env: NodeJS.ProcessEnv = process.env): number {
  const value = Number(env.TOLLGATE_READY_DB_TIMEOUT_MS);
  return Number.isInteger(value) && value > 0 ? value : 1_000;
}

type DatabaseCheck = { at: number; ok: boolean; pending: Promise<boolean> | null };
const lastCheck = () =>
  processSlot<DatabaseCheck>("probes.database", () => ({ at: 0, ok: false, pending: null }));

/**
 * Whether the database answers `select 1` within the timeout. One check at a time, its answer reused for a
 * second, so a load balancer probing every instance often costs the database next to nothing.
 */
export function databaseReachable(now = Date.now()): Promise<boolean> {
  const check = lastCheck();
  if (now - check.at < DATABASE_CHECK_TTL_MS) return Promise.resolve(check.ok);
  check.pending ??= (async () => {
    const timeoutMs = databaseCheckTimeoutMs();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<false>((resolve) => {
      timer = setTimeout(() => {
        log.warn({ timeoutMs }, "readiness: the database did not answer in time");
        resolve(false);
      }, timeoutMs);
    });
    const query = (async () => {
      const { db } = await getDatabase();
      await db.execute(sql`select 1`);
      return true as const;
    })().catch((error: unknown) => {
      log.warn({ err: error }, "readiness: the database did not answer");
      return false as const;
    });
    const ok = await Promise.race([query, timeout]);
    clearTimeout(timer);
    Object.assign(check, { at: Date.now(), ok, pending: null });
    markDependency("database", ok);
    return ok;
  })();
  return check.pending;
}

/** Forgets the cached database check (tests). */
export function forgetDatabaseCheck(): void {
  Object.assign(lastCheck(), { at: 0, ok: false, pending: null });
}

/**
 * Readiness: this process should get traffic. Not while it starts (migrations and seed not done), not once it
 * drains (SIGTERM seen), and not while the database does not answer.
 */
export async function readiness(): Promise<Readiness> {
  if (isDraining()) return { ready: false, reason: "draining" };
  if (!isStarted()) return { ready: false, reason: "starting" };
  if (!(await databaseReachable())) return { ready: false, reason: "database unreachable" };
  return { ready: true, reason: null };
}

/** Liveness: the event loop runs (answering at all is the proof); restart the process only when this fails. */
export function liveness(): { live: true; uptimeSeconds: number } {
  return { live: true, uptimeSeconds: Math.round(process.uptime()) };
}

/** A probe's answer as status and JSON body: 200 when ready, else 503 with the reason (and a Retry-After). */
export async function readinessAnswer(): Promise<{
  status: number;
  headers: Record<string, string>;
  body: string;
}> {
  const state = await readiness();
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "cache-control": "no-store",
  };
  if (!state.ready) headers["retry-after"] = "1";
  return { status: state.ready ? 200 : 503, headers, body: JSON.stringify(state) };
}

export function livenessAnswer(): { status: number; headers: Record<string, string>; body: string } {
  return {
    status: 200,
    headers: { "content-type": "application/json", "cache-control": "no-store" },
    body: JSON.stringify(liveness()),
  };
}
