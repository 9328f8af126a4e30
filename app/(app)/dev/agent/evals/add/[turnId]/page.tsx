import Link from "next/link";
import { notFound } from "next/navigation";
import { ChooseTenantNote } from "@/components/admin-kit/ui";
import { AddToDatasetForm } from "@/features/evals/components/add-to-dataset";
import { requirePromptEditor } from "@/lib/auth/page-guards";
import { isUuid } from "@/lib/core/schema/uuid";
import { titleMetadata } from "@/lib/i18n/metadata";
import { getTranslator } from "@/lib/i18n/server";

export const generateMetadata = titleMetadata("evals.addToDataset");

/** "Add to dataset" from a usage-ledger row: the turn's messages and answer become an item of a dataset. */
export default async function Page({ params }: { params: Promise<{ turnId: string }> }) {
  const auth = await requirePromptEditor();
  const { turnId } = await params;
  if (!isUuid(turnId)) notFound();
  const t = await getTranslator();
  return (
    <div data-testid="add-turn-page" className="min-w-0 space-y-6">
      <header className="space-y-2">
        <nav className="flex flex-wrap gap-4 text-sm">
          <Link href="/dev/agent/turns" className="text-indigo-600 hover:underline dark:text-indigo-400">
            ← {t("nav.turns")}
          </Link>
          <Link
            href={`/dev/agent/audit/${turnId}`}
            className="text-indigo-600 hover:underline dark:text-indigo-400"
          >
            {t("replay.title")}
          </Link>
        </nav>
        <h1 className="text-2xl font-bold">{t("evals.addToDataset")}</h1>
        <p className="text-slate-600 dark:text-slate-300">{t("evals.addLead")}</p>
        <p className="font-mono text-xs break-all text-slate-500">{turnId}</p>
      </header>
      {auth.tenant ? (
        <AddToDatasetForm key={`${auth.tenant.id}:${turnId}`} turnId={turnId} />
      ) : (
        <ChooseTenantNote message={t("evals.chooseTenant")} />
      )}
    </div>
  );
}
