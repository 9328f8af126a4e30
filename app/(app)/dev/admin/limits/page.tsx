import { GovernancePage } from "@/components/admin-kit/admin-page";
import { LimitsAdmin } from "@/features/limits/components/limits-admin";
import { requireTenantAdmin } from "@/lib/auth/page-guards";
import { titleMetadata } from "@/lib/i18n/metadata";

export const generateMetadata = titleMetadata("gov.limitsPage.title");

export default async function LimitsPage() {
  const auth = await requireTenantAdmin();
  return (
    <GovernancePage auth={auth} title="gov.limitsPage.title" lead="gov.limitsPage.lead" testId="admin-limits">
      {(tenantId) => <LimitsAdmin key={tenantId} />}
    </GovernancePage>
  );
}
