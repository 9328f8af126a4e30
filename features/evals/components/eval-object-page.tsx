import { notFound } from "next/navigation";
import { Fragment, type ReactNode } from "react";
import { ChooseTenantNote } from "@/components/admin-kit/ui";
import { requirePromptEditor } from "@/lib/auth/page-guards";
import { isUuid } from "@/lib/core/schema/uuid";
import { getTranslator } from "@/lib/i18n/server";

/**
 * A page of one evaluation object (a dataset, a run) of the active tenant, for tenant admins and prompt editors:
 * a malformed id is 404, no chosen tenant says so, and a tenant switch starts the page over.
 */
export async function evalObjectPage(
  params: Promise<{ id: string }>,
  render: (id: string) => ReactNode,
): Promise<ReactNode> {
  const auth = await requirePromptEditor();
  const { id } = await params;
  if (!isUuid(id)) notFound();
  if (!auth.tenant) return <ChooseTenantNote message={(await getTranslator())("evals.chooseTenant")} />;
  return <Fragment key={`${auth.tenant.id}:${id}`}>{render(id)}</Fragment>;
}
