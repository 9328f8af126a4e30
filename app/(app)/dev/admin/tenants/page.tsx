import { AdminPageFrame } from "@/components/admin/page-frame";
import { pageSchemaFor } from "@/components/admin/page-schema";
import { TenantsAdmin } from "@/components/admin/tenants-admin";
import { requireSuperAdmin } from "@/lib/auth/page-guards";

/** Every tenant of the platform (super admin only), whatever the tenant switcher shows. */
export default async function TenantsPage() {
  const auth = await requireSuperAdmin();
  return (
    <AdminPageFrame title="admin.tenants.title" lead="admin.tenants.lead" testId="admin-tenants">
      <TenantsAdmin tenantsPage={pageSchemaFor("admin-tenants", auth)} />
    </AdminPageFrame>
  );
}
