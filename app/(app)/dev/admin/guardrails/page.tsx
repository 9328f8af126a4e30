import { GovernancePage } from "@/components/admin-kit/admin-page";
import { GuardrailsAdmin } from "@/features/guardrails/components/guardrails-admin";
import { requireTenantAdmin } from "@/lib/auth/page-guards";
import { titleMetadata } from "@/lib/i18n/metadata";

export const generateMetadata = titleMetadata("nav.guardrails");

export default async function GuardrailsPage() {
  const auth = await requireTenantAdmin();
  return (
    <GovernancePage auth={auth} title="gr.title" lead="gr.lead" testId="admin-guardrails">
      {(tenantId) => <GuardrailsAdmin key={tenantId} />}
    </GovernancePage>
  );
}
