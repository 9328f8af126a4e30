import { SchemaPageClient } from "@/features/admin-tables/components/schema-page";
import { pageSchemaFor } from "@/features/admin-tables/server/page-schema";
import { NewPrompt } from "@/features/prompts/components/new-prompt";
import { promptAccess } from "@/features/prompts/server/access";
import { requireUser } from "@/lib/auth/page-guards";
import { getTranslator } from "@/lib/i18n/server";

/** The tenant's prompts (every member reads them; editors get "New prompt"). */
export default async function PromptsPage() {
  const auth = await requireUser();
  const schema = pageSchemaFor("agent-prompts", auth);
  const t = await getTranslator();
  const rights = auth.tenant ? promptAccess(auth).rights : null;
  return (
    // Keyed by tenant: the switcher only refreshes, and the previous tenant's rows must not linger.
    <SchemaPageClient
      key={auth.tenant?.id ?? "platform"}
      schema={schema}
      superAdmin={auth.user.isSuperAdmin && !auth.tenant}
      viewerId={auth.user.id}
      scope={auth.tenant ? t("page.scope.tenant", { tenant: auth.tenant.name }) : t("page.scope.platform")}
      actions={rights?.edit ? <NewPrompt rights={rights} /> : undefined}
    />
  );
}
