import "server-only";
import { and, eq, isNull } from "drizzle-orm";
import type { Database } from "@/db";
import { ledgerArchive } from "@/db/schema";
import type { ArchivedTurn } from "@/features/replay/contracts";
import { monthOfUuidV7 } from "@/lib/governance/archive/month";

/**
 * The archive holding a turn that is not in the database, read from its UUIDv7 id's month: the tenant's archive of
 * that month (not restored), or null. Scoped by construction: another tenant's archive never answers, so an id from
 * another tenant reads as not found unless this tenant archived the same month (and then says only that much).
 * `tenantId` null (the platform super admin, no tenant chosen): the first tenant with that month archived.
 */
export async function archivedTurn(
  db: Database,
  q: { tenantId: string | null; turnId: string },
): Promise<ArchivedTurn | null> {
  const month = monthOfUuidV7(q.turnId);
  if (!month) return null;
  const [row] = await db
    .select({ tenantId: ledgerArchive.tenantId, location: ledgerArchive.location })
    .from(ledgerArchive)
    .where(
      and(
        eq(ledgerArchive.month, month),
        isNull(ledgerArchive.restoredAt),
        q.tenantId ? eq(ledgerArchive.tenantId, q.tenantId) : undefined,
      ),
    )
    .orderBy(ledgerArchive.tenantId)
    .limit(1);
  if (!row) return null;
  return {
    tenantId: row.tenantId,
    month,
    location: row.location,
    restoreCommand: `npm run archive:restore -- --tenant ${row.tenantId} --month ${month}`,
  };
}
