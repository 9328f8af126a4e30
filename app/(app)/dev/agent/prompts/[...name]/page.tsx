import { notFound } from "next/navigation";
import { Suspense } from "react";
import { ChooseTenantNote } from "@/components/admin-kit/ui";
import { PromptHeading, PromptPage } from "@/features/prompts/components/prompt-page";
import { promptName } from "@/features/prompts/contracts";
import { requireUser } from "@/lib/auth/page-guards";
import { getTranslator } from "@/lib/i18n/server";

/** Segments as the router gives them, each decoded once more: the list links "a%2Fb", a typed URL "a/b". */
function nameOf(segments: string[]): string | null {
  try {
    const parsed = promptName.safeParse(segments.map((s) => decodeURIComponent(s)).join("/"));
    return parsed.success ? parsed.data : null;
  } catch {
    return null; // A malformed escape is no prompt's name.
  }
}

/** One prompt of the active tenant: every member reads it and uses the playground. */
export default async function Page({ params }: { params: Promise<{ name: string[] }> }) {
  const auth = await requireUser();
  const t = await getTranslator();
  const name = nameOf((await params).name);
  if (!name) notFound();
  return (
    <div data-testid="prompt-page" className="min-w-0 space-y-6">
      <PromptHeading name={name} />
      {auth.tenant ? (
        <Suspense fallback={<p className="text-sm text-slate-500">{t("prompts.loading")}</p>}>
          {/* Keyed by tenant and name: a tenant switch or another prompt starts the page over. */}
          <PromptPage key={`${auth.tenant.id}:${name}`} name={name} />
        </Suspense>
      ) : (
        <ChooseTenantNote message={t("prompts.chooseTenant")} />
      )}
    </div>
  );
}
