import { AdminPageFrame } from "@/components/admin-kit/page-frame";
import { ChooseTenantNote } from "@/components/admin-kit/ui";
import { pageSchemaFor } from "@/features/admin-tables/server/page-schema";
import { MembersAdmin } from "@/features/members/components/members-admin";
import { requireTenantAdmin } from "@/lib/auth/page-guards";
import { titleMetadata } from "@/lib/i18n/metadata";
import { getTranslator } from "@/lib/i18n/server";

export const generateMetadata = titleMetadata("nav.members");

/** The active tenant's members, invitations and sign-in settings (tenant admins and the super admin). */
export default async function MembersPage() {
  const auth = await requireTenantAdmin();
  const t = await getTranslator();
  const tenant = auth.tenant;
  return (
    <AdminPageFrame
      title="admin.members.title"
      lead="admin.members.lead"
      testId="admin-members"
      scope={tenant ? t("page.scope.tenant", { tenant: tenant.name }) : t("page.scope.platform")}
    >
      {tenant ? (
        // Keyed by tenant: the switcher only refreshes, and the previous tenant's rows must not linger.
        <MembersAdmin
          key={tenant.id}
          membersPage={pageSchemaFor("admin-members", auth)}
          invitationsPage={pageSchemaFor("admin-invitations", auth)}
          viewerId={auth.user.id}
        />
      ) : (
        <ChooseTenantNote message={t("admin.members.chooseTenant")} />
      )}
    </AdminPageFrame>
  );
}
