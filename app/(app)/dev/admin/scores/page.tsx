import { ChooseTenantNote } from "@/components/admin-kit/ui";
import { ScoreConfigsAdmin } from "@/features/scores/components";
import { requireTenantAdmin } from "@/lib/auth/page-guards";
import { titleMetadata } from "@/lib/i18n/metadata";
import { getTranslator } from "@/lib/i18n/server";

export const generateMetadata = titleMetadata("nav.scores");

/** The tenant's score configs: what each score name may take (a range, true / false, categories). */
export default async function ScoresPage() {
  const auth = await requireTenantAdmin();
  const t = await getTranslator();
  const tenant = auth.tenant;
  return (
    <div data-testid="admin-scores" className="min-w-0 space-y-6">
      <header className="space-y-1">
        <h1 className="text-2xl font-bold">{t("sc.title")}</h1>
        <p className="text-slate-600 dark:text-slate-300">{t("sc.lead")}</p>
        {tenant && (
          <p data-testid="page-scope" className="text-sm text-slate-500">
            {t("page.scope.tenant", { tenant: tenant.name })}
          </p>
        )}
      </header>
      {tenant ? <ScoreConfigsAdmin key={tenant.id} /> : <ChooseTenantNote message={t("sc.chooseTenant")} />}
    </div>
  );
}
