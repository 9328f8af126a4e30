import { notFound } from "next/navigation";
import { DatasetPage } from "@/features/evals/components/dataset-page";
import { requireUser } from "@/lib/auth/page-guards";
import { isUuid } from "@/lib/core/uuid";
import { titleMetadata } from "@/lib/i18n/metadata";
import { getTranslator } from "@/lib/i18n/server";

export const generateMetadata = titleMetadata("evals.datasetTitle");

/** One dataset of the active tenant; the evaluation routes decide who may read it (admins, prompt editors). */
export default async function Page({ params }: { params: Promise<{ id: string }> }) {
  const auth = await requireUser();
  const { id } = await params;
  if (!isUuid(id)) notFound();
  if (!auth.tenant) return <ChooseTenant />;
  return <DatasetPage key={`${auth.tenant.id}:${id}`} id={id} />;
}

async function ChooseTenant() {
  const t = await getTranslator();
  return (
    <p
      data-testid="choose-tenant"
      className="rounded-md border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-900 dark:border-amber-800 dark:bg-amber-950/30 dark:text-amber-100"
    >
      {t("evals.chooseTenant")}
    </p>
  );
}
