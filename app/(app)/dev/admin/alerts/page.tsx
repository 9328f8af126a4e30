import { AlertsAdmin } from "@/features/alerts/components";
import { requireTenantAdmin } from "@/lib/auth/page-guards";
import { titleMetadata } from "@/lib/i18n/metadata";
import { getTranslator } from "@/lib/i18n/server";

export const generateMetadata = titleMetadata("nav.alerts");

/** A tenant's alerts; the super admin in the platform view (no tenant chosen) manages the platform's. */
export default async function AlertsPage() {
  const auth = await requireTenantAdmin();
  const t = await getTranslator();
  const tenant = auth.tenant;
  return (
    <div data-testid="admin-alerts" className="min-w-0 space-y-6">
      <header className="space-y-1">
        <h1 className="text-2xl font-bold">{t("al.title")}</h1>
        <p className="text-slate-600 dark:text-slate-300">{t("al.lead")}</p>
        <p data-testid="page-scope" className="text-sm text-slate-500">
          {tenant ? t("page.scope.tenant", { tenant: tenant.name }) : t("page.scope.platform")}
        </p>
        {!tenant && <p className="text-sm text-slate-500">{t("al.platformLead")}</p>}
      </header>
      {tenant ? <AlertsAdmin key={tenant.id} /> : <AlertsAdmin platform />}
    </div>
  );
}
