import { ChooseTenantNote } from "@/components/admin-kit/ui";
import { ReviewQueuesAdmin } from "@/features/reviews/components";
import { requireTenantAdmin } from "@/lib/auth/page-guards";
import { titleMetadata } from "@/lib/i18n/metadata";
import { getTranslator } from "@/lib/i18n/server";

export const generateMetadata = titleMetadata("nav.reviews");

/** The tenant's review queues: their progress, a way into each, and the form that defines one. */
export default async function ReviewQueuesPage() {
  const auth = await requireTenantAdmin();
  const t = await getTranslator();
  const tenant = auth.tenant;
  return (
    <div data-testid="admin-reviews" className="min-w-0 space-y-6">
      <header className="space-y-1">
        <h1 className="text-2xl font-bold">{t("rv.title")}</h1>
        <p className="text-slate-600 dark:text-slate-300">{t("rv.lead")}</p>
        {tenant && (
          <p data-testid="page-scope" className="text-sm text-slate-500">
            {t("page.scope.tenant", { tenant: tenant.name })}
          </p>
        )}
      </header>
      {tenant ? <ReviewQueuesAdmin key={tenant.id} /> : <ChooseTenantNote message={t("rv.chooseTenant")} />}
    </div>
  );
}
