import { AdminPageFrame } from "@/components/admin-kit/page-frame";
import { pageSchemaFor } from "@/components/admin-kit/page-schema";
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
        <p
          data-testid="choose-tenant"
          className="rounded-md border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-900 dark:border-amber-800 dark:bg-amber-950/30 dark:text-amber-100"
        >
          {t("admin.members.chooseTenant")}
        </p>
      )}
    </AdminPageFrame>
  );
}
