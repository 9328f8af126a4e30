import { AdminPageFrame } from "@/components/admin-kit/page-frame";
import { ChooseTenantNote } from "@/components/admin-kit/ui";
import { SchemaPageClient } from "@/features/admin-tables/components/schema-page";
import { pageSchemaFor } from "@/features/admin-tables/server/page-schema";
import { EvalsActions } from "@/features/evals/components/evals-actions";
import { requirePromptEditor } from "@/lib/auth/page-guards";
import { titleMetadata } from "@/lib/i18n/metadata";
import { getTranslator } from "@/lib/i18n/server";

export const generateMetadata = titleMetadata("nav.evals");

/** The tenant's evaluation datasets and runs (tenant admins; the super admin sees every tenant's). */
export default async function EvalsPage() {
  const auth = await requirePromptEditor();
  const t = await getTranslator();
  const datasets = pageSchemaFor("eval-datasets", auth);
  const runs = pageSchemaFor("eval-runs", auth);
  const platform = auth.user.isSuperAdmin && !auth.tenant;
  return (
    <AdminPageFrame
      title="evals.title"
      lead="evals.lead"
      testId="evals-page"
      scope={auth.tenant ? t("page.scope.tenant", { tenant: auth.tenant.name }) : t("page.scope.platform")}
    >
      {/* Keyed by tenant: the switcher only refreshes, and the previous tenant's rows must not linger. */}
      <div key={auth.tenant?.id ?? "platform"} className="space-y-8">
        {auth.tenant ? <EvalsActions /> : <ChooseTenantNote message={t("evals.chooseTenant")} />}
        <SchemaPageClient schema={datasets} superAdmin={platform} viewerId={auth.user.id} embedded />
        <SchemaPageClient
          schema={runs}
          superAdmin={platform}
          viewerId={auth.user.id}
          embedded
          urlPrefix="runs."
        />
      </div>
    </AdminPageFrame>
  );
}
