import { GovernancePage } from "@/components/admin-kit/admin-page";
import { McpAdmin } from "@/features/mcp/components/mcp-admin";
import { requireTenantAdmin } from "@/lib/auth/page-guards";
import { titleMetadata } from "@/lib/i18n/metadata";

export const generateMetadata = titleMetadata("nav.mcp");

export default async function McpServersPage() {
  const auth = await requireTenantAdmin();
  return (
    <GovernancePage auth={auth} title="mcp.title" lead="mcp.lead" testId="admin-mcp">
      {(tenantId) => <McpAdmin key={tenantId} />}
    </GovernancePage>
  );
}
