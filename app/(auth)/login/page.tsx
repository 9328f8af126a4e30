import { redirect } from "next/navigation";
import { LoginForm } from "@/components/auth/login-form";
import { LanguageSwitch, ThemeToggle } from "@/components/ui/preferences";
import { currentUser } from "@/lib/auth/guards";
import { safeCallbackPath } from "@/lib/auth/sign-in";
import { getTranslator } from "@/lib/i18n/server";

export default async function LoginPage({
  searchParams,
}: {
  searchParams: Promise<{ callbackUrl?: string }>;
}) {
  const { callbackUrl } = await searchParams;
  if (await currentUser()) redirect(safeCallbackPath(callbackUrl));
  const t = await getTranslator();
  return (
    <main className="flex min-h-screen items-center justify-center p-4">
      <div className="w-full max-w-sm">
        <div className="mb-4 flex justify-end gap-2">
          <LanguageSwitch />
          <ThemeToggle />
        </div>
        <div className="rounded-xl border border-slate-200 bg-white p-6 shadow-sm dark:border-slate-800 dark:bg-slate-900">
          <p className="text-sm font-semibold tracking-wide text-indigo-600 dark:text-indigo-400">
            {t("app.name")}
          </p>
          <h1 className="mb-6 text-xl font-semibold">{t("login.title")}</h1>
          <LoginForm callbackUrl={callbackUrl} />
        </div>
        <p className="mt-4 text-center text-xs text-slate-500">{t("login.demoHint")}</p>
      </div>
    </main>
  );
}
