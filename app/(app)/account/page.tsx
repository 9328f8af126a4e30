import { ChangePasswordForm } from "@/features/account/components/change-password-form";
import { OtherSessions } from "@/features/account/components/other-sessions";
import { requireUser } from "@/lib/auth/page-guards";
import { titleMetadata } from "@/lib/i18n/metadata";
import { getTranslator } from "@/lib/i18n/server";

export const generateMetadata = titleMetadata("account.title");

/** Your own account: who you are signed in as, your password, and your other sessions. */
export default async function AccountPage() {
  const auth = await requireUser();
  const t = await getTranslator();
  return (
    <div data-testid="account" className="min-w-0 space-y-6">
      <header className="space-y-1">
        <h1 className="text-2xl font-bold">{t("account.title")}</h1>
        <p className="text-slate-600 dark:text-slate-300">{t("account.lead")}</p>
      </header>
      <dl className="grid gap-x-6 gap-y-2 rounded-lg border border-slate-200 bg-white p-4 text-sm sm:grid-cols-[auto_1fr] dark:border-slate-800 dark:bg-slate-900">
        <dt className="text-slate-500 dark:text-slate-400">{t("account.name")}</dt>
        <dd data-testid="account-name">{auth.user.name}</dd>
        <dt className="text-slate-500 dark:text-slate-400">{t("account.email")}</dt>
        <dd data-testid="account-email" className="break-all">
          {auth.user.email}
        </dd>
        <dt className="text-slate-500 dark:text-slate-400">{t("account.tenants")}</dt>
        <dd>
          {auth.user.isSuperAdmin
            ? t("account.everyTenant")
            : auth.tenants.map((x) => `${x.name} (${t(`role.${x.role}`)})`).join(", ") || "—"}
        </dd>
      </dl>
      <ChangePasswordForm />
      <OtherSessions />
    </div>
  );
}
