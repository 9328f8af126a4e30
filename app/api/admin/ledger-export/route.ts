import { getDb } from "@/db";
import { ARCHIVED_MONTHS_HEADER, ledgerExportQuery } from "@/features/ledger-export/contracts";
import { archivedMonthsIn, ledgerExportStream } from "@/features/ledger-export/server";
import { activeTenantOrThrow, withTenantAdmin } from "@/lib/auth/guards";

/**
 * The active tenant's ledger and audit trail of a range of UTC days as one gzip'd JSON Lines file, streamed from
 * the database; months moved to the archive are not in it, and the response header names them.
 */
export const GET = withTenantAdmin(async (req, { auth }) => {
  const tenant = activeTenantOrThrow(auth);
  const url = new URL(req.url);
  const q = ledgerExportQuery.parse({ from: url.searchParams.get("from"), to: url.searchParams.get("to") });
  const db = await getDb();
  const archived = await archivedMonthsIn(db, tenant.id, q);
  return new Response(ledgerExportStream(db, tenant.id, q), {
    headers: {
      "content-type": "application/gzip",
      "content-disposition": `attachment; filename="ledger-${tenant.slug}-${q.from}-${q.to}.jsonl.gz"`,
      [ARCHIVED_MONTHS_HEADER]: archived.join(","),
      "cache-control": "no-store",
    },
  });
});
