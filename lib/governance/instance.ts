import "server-only";
import { randomUUID } from "node:crypto";
import { readFileSync, readlinkSync } from "node:fs";
import { hostname } from "node:os";
import { and, eq, lt, ne, sql } from "drizzle-orm";
import type { Database } from "@/db";
import { instance } from "@/db/schema";

/** How often a live process moves its heartbeat. */
export const HEARTBEAT_INTERVAL_MS = 10_000;
/** A process whose heartbeat is older than this is dead: three missed beats. */
export const HEARTBEAT_TIMEOUT_MS = 30_000;
/** Rows of instances dead this long are deleted (their turns were swept long before). */
const FORGET_AFTER_MS = 24 * 3600_000;

export type ProcessIdentity = {
  /** Minted once per process; stamped on every turn the process runs. */
  id: string;
  host: string;
  pid: number;
  /** Boot id and PID namespace (Linux): rows with the same value have pids this process can check. */
  processSpace: string | null;
};

/** A new identity for this process (the composition root mints one at start, and every turn carries its id). */
export function mintProcessIdentity(): ProcessIdentity {
  return { id: randomUUID(), host: hostname(), pid: process.pid, processSpace: readProcessSpace() };
}

function readProcessSpace(): string | null {
  try {
    const boot = readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
    const ns = readlinkSync("/proc/self/ns/pid");
    return `${boot}/${ns}`;
  } catch {
    return null;
  }
}

/** Writes (or rewrites) this process's row with a fresh heartbeat; also after its row was marked dead. */
export async function writeHeartbeat(db: Database, self: ProcessIdentity): Promise<void> {
  await db
    .insert(instance)
    .values({ id: self.id, host: self.host, pid: self.pid, processSpace: self.processSpace })
    .onConflictDoUpdate({ target: instance.id, set: { heartbeatAt: sql`now()` } });
}

/**
 * Marks dead, at once, the instances this process can prove dead without waiting for their heartbeat to go
 * stale: same PID namespace on the same boot, and their pid is gone (or is this very process: a restart
 * that got the same pid, as PID 1 in a container does). Returns their ids.
 */
export async function markDeadNeighbours(db: Database, self: ProcessIdentity): Promise<string[]> {
  if (!self.processSpace) return [];
  const rows = await db
    .select({ id: instance.id, pid: instance.pid })
    .from(instance)
    .where(
      and(
        eq(instance.processSpace, self.processSpace),
        ne(instance.id, self.id),
        sql`${instance.heartbeatAt} > to_timestamp(0)`,
      ),
    );
  const dead = rows.filter((r) => r.pid === self.pid || !pidAlive(r.pid)).map((r) => r.id);
  for (const id of dead) {
    await db.update(instance).set({ heartbeatAt: sql`to_timestamp(0)` }).where(eq(instance.id, id));
  }
  return dead;
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Deletes the rows of instances that have been dead for a day. */
export async function forgetDeadInstances(db: Database): Promise<number> {
  const gone = await db
    .delete(instance)
    .where(lt(instance.heartbeatAt, sql`now() - ${`${FORGET_AFTER_MS} milliseconds`}::interval`))
    .returning({ id: instance.id });
  return gone.length;
}
