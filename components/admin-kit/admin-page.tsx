import type { ReactNode } from "react";
import type { UserContext } from "@/lib/auth/guards";
import type { MessageKey } from "@/lib/i18n/messages";
import { getTranslator } from "@/lib/i18n/server";
import { ChooseTenantNote } from "./ui";

/**
 * The frame of a tenant admin screen: title, lead and scope, then the screen itself, keyed by the tenant so a
 * switch starts it over. Keys and limits belong to one tenant: the platform view asks to pick one first.
 */
export async function GovernancePage(props: {
  auth: UserContext;
  title: MessageKey;
  lead: MessageKey;
  testId: string;
  children: (tenantId: string) => ReactNode;
}) {
  const t = await getTranslator();
  const tenant = props.auth.tenant;
  return (
    <div data-testid={props.testId} className="min-w-0 space-y-6">
      <header className="space-y-1">
        <h1 className="text-2xl font-bold">{t(props.title)}</h1>
        <p className="text-slate-600 dark:text-slate-300">{t(props.lead)}</p>
        <p data-testid="page-scope" className="text-sm text-slate-500">
          {tenant ? t("page.scope.tenant", { tenant: tenant.name }) : t("page.scope.platform")}
        </p>
      </header>
      {tenant ? props.children(tenant.id) : <ChooseTenantNote message={t("gov.chooseTenant")} />}
    </div>
  );
}
