import { requireTenantAdmin } from "@/lib/auth/page-guards";
import type { MessageKey } from "@/lib/i18n/messages";
import { getTranslator } from "@/lib/i18n/server";

/** A guarded admin page: tenant admins see their tenant, the super admin the platform or the chosen tenant. */
export async function AdminPageShell({ title, lead }: { title: MessageKey; lead: MessageKey }) {
  const auth = await requireTenantAdmin();
  const t = await getTranslator();
  return (
    <div className="space-y-2">
      <h1 className="text-2xl font-bold">{t(title)}</h1>
      <p className="text-slate-600 dark:text-slate-300">{t(lead)}</p>
      <p data-testid="page-scope" className="text-sm text-slate-500">
        {auth.tenant ? t("page.scope.tenant", { tenant: auth.tenant.name }) : t("page.scope.platform")}
      </p>
      <p className="rounded-md border border-dashed border-slate-300 p-4 text-sm text-slate-500 dark:border-slate-700">
        {t("page.comingSoon")}
      </p>
    </div>
  );
}
