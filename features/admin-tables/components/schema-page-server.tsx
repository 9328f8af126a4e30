import { forbidden, notFound } from "next/navigation";
import { SchemaPageClient } from "@/features/admin-tables/components/schema-page";
import type { OpenedPage } from "@/features/admin-tables/server";
import { requireUser } from "@/lib/auth/page-guards";
import { AppError } from "@/lib/core/errors/app-error";
import { getTranslator } from "@/lib/i18n/server";
import { container } from "@/server/container";

/** An admin page rendered from schemas/<schemaKey>.schema.json, guarded by the page's roles. */
export async function SchemaPage({ schemaKey, note }: { schemaKey: string; note?: string }) {
  const auth = await requireUser();
  let opened: OpenedPage;
  try {
    opened = container().pages.open(schemaKey, auth);
  } catch (error) {
    if (error instanceof AppError && error.code === "not_found") notFound();
    if (error instanceof AppError && error.code === "forbidden") forbidden();
    throw error;
  }
  const t = await getTranslator();
  const scope = auth.tenant ? t("page.scope.tenant", { tenant: auth.tenant.name }) : t("page.scope.platform");
  // Keyed by tenant: the tenant switcher only refreshes, and the previous tenant's rows must not linger.
  return (
    <SchemaPageClient
      key={auth.tenant?.id ?? "platform"}
      schema={opened.page}
      superAdmin={opened.ctx.superAdmin && !opened.ctx.tenantId}
      viewerId={auth.user.id}
      scope={scope}
      note={note}
    />
  );
}
