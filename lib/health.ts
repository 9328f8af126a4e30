import "server-only";
import { sql } from "drizzle-orm";
import { getDatabase } from "@/db";
import { migrationStatus } from "@/db/migrate";
import {
  type BatchLag,
  batchers,
  cleanedValues,
  type GovernanceFailures,
  governanceFailures,
} from "@/lib/core/errors/failures";
import { log } from "@/lib/core/process/log";
import pkg from "@/package.json";

export type Health = {
  status: "ok" | "degraded";
  version: string;
  database: {
    reachable: boolean;
    kind?: string;
    migration?: { applied: number; expected: number; latest: string | null };
  };
  /** Ledger, audit and conversation writes that failed since start (the replies still went out). */
  governanceWriteFailures: GovernanceFailures;
  /** Values (rows, events, messages) whose NUL characters or lone surrogates were replaced before writing. */
  governanceValuesCleaned: number;
  /** The batched API ledger's lag, per batching recorder of this process (e.g. `v1`). */
  ledgerBacklog: Record<string, BatchLag>;
};

/** The counters every route bundle shares (anchored once, see lib/core/errors/failures.ts). */
function governance() {
  return {
    governanceWriteFailures: { ...governanceFailures },
    governanceValuesCleaned: cleanedValues(),
    ledgerBacklog: Object.fromEntries(batchers().map((b) => [b.name, b.stats()])),
  };
}

export async function getHealth(): Promise<Health> {
  try {
    const handle = await getDatabase();
    await handle.db.execute(sql`select 1`);
    const migration = await migrationStatus(handle);
    const current = migration.applied === migration.expected;
    return {
      status: current ? "ok" : "degraded",
      version: pkg.version,
      database: { reachable: true, kind: handle.kind, migration },
      ...governance(),
    };
  } catch (error) {
    log.error({ err: error }, "health check: database unreachable");
    return { status: "degraded", version: pkg.version, database: { reachable: false }, ...governance() };
  }
}
