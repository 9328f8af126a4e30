import Link from "next/link";
import type { ArchivedTurn } from "@/features/replay/contracts";
import { getTranslator } from "@/lib/i18n/server";

/** The replay of a turn whose month was archived: where it is and how to bring it back (no rows to show). */
export async function ArchivedTurnView({ turnId, archive }: { turnId: string; archive: ArchivedTurn }) {
  const t = await getTranslator();
  return (
    <div className="mx-auto max-w-3xl space-y-4 p-6" data-testid="replay-archived">
      <Link href="/dev/agent/audit" className="text-sm text-slate-500 hover:underline">
        ← {t("replay.backToAudit")}
      </Link>
      <h1 className="text-xl font-semibold">{t("replay.archived.title")}</h1>
      <p className="text-sm text-slate-600 dark:text-slate-300">
        {t("replay.archived.body", { month: archive.month })}
      </p>
      <dl className="grid grid-cols-[max-content_1fr] gap-x-4 gap-y-2 text-sm">
        <dt className="text-slate-500">{t("replay.archived.turn")}</dt>
        <dd className="font-mono break-all">{turnId}</dd>
        <dt className="text-slate-500">{t("replay.archived.location")}</dt>
        <dd className="font-mono break-all" data-testid="replay-archived-location">
          {archive.location}
        </dd>
        <dt className="text-slate-500">{t("replay.archived.restore")}</dt>
        <dd>
          <code className="block rounded bg-slate-100 px-2 py-1 font-mono break-all dark:bg-slate-800">
            {archive.restoreCommand}
          </code>
        </dd>
      </dl>
      <p className="text-sm text-slate-500">{t("replay.archived.hint")}</p>
    </div>
  );
}
