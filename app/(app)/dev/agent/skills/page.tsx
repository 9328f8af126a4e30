import { ChooseTenantNote } from "@/components/admin-kit/ui";
import { SkillsList } from "@/features/prompts/components/skills-list";
import { requireUser } from "@/lib/auth/page-guards";
import { getTranslator } from "@/lib/i18n/server";

/** The tenant's skills (every member reads them; editors import and write them). */
export default async function SkillsPage() {
  const auth = await requireUser();
  const t = await getTranslator();
  return (
    <div data-testid="skills-page" className="min-w-0 space-y-4">
      <header className="space-y-1">
        <h1 className="text-xl font-semibold">{t("skills.title")}</h1>
        <p className="text-sm text-slate-600 dark:text-slate-300">{t("skills.lead")}</p>
      </header>
      {auth.tenant ? (
        // Keyed by tenant: the switcher only refreshes, and the previous tenant's skills must not linger.
        <SkillsList key={auth.tenant.id} />
      ) : (
        <ChooseTenantNote message={t("skills.chooseTenant")} />
      )}
    </div>
  );
}
