import Link from "next/link";
import { notFound } from "next/navigation";
import { ChooseTenantNote } from "@/components/admin-kit/ui";
import { SkillPage } from "@/features/prompts/components/skill-page";
import { skillNameProblem } from "@/features/prompts/contracts";
import { requireUser } from "@/lib/auth/page-guards";
import { getTranslator } from "@/lib/i18n/server";

/** One skill of the active tenant: its versions, instructions, files and labels. */
export default async function Page({ params }: { params: Promise<{ name: string }> }) {
  const auth = await requireUser();
  const t = await getTranslator();
  let name: string;
  try {
    name = decodeURIComponent((await params).name);
  } catch {
    notFound(); // A malformed escape is no skill's name.
  }
  if (skillNameProblem(name)) notFound();
  return (
    <div data-testid="skill-page" className="min-w-0 space-y-4">
      <header className="space-y-1">
        <p className="text-sm">
          <Link href="/dev/agent/skills" className="text-indigo-600 hover:underline dark:text-indigo-400">
            {t("skills.title")}
          </Link>
        </p>
        <h1 className="font-mono text-xl font-semibold">{name}</h1>
      </header>
      {auth.tenant ? (
        <SkillPage key={`${auth.tenant.id}:${name}`} name={name} />
      ) : (
        <ChooseTenantNote message={t("skills.chooseTenant")} />
      )}
    </div>
  );
}
