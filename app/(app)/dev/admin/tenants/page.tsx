import { AdminPageFrame } from "@/components/admin-kit/page-frame";
import { pageSchemaFor } from "@/features/admin-tables/server/page-schema";
import { TenantsAdmin } from "@/features/tenants/components/tenants-admin";
import { requireSuperAdmin } from "@/lib/auth/page-guards";
import { titleMetadata } from "@/lib/i18n/metadata";

export const generateMetadata = titleMetadata("nav.tenants");

/** Every tenant of the platform (super admin only), whatever the tenant switcher shows. */
export default async function TenantsPage() {
  const auth = await requireSuperAdmin();
  return (
    <AdminPageFrame title="admin.tenants.title" lead="admin.tenants.lead" testId="admin-tenants">
      <TenantsAdmin tenantsPage={pageSchemaFor("admin-tenants", auth)} viewerId={auth.user.id} />
    </AdminPageFrame>
  );
}
