import { redirect } from "next/navigation";
import { LanguageSwitch, ThemeToggle } from "@/components/ui/preferences";
import { LoginForm } from "@/features/account/components/login-form";
import { demoHintShown } from "@/features/demo/server";
import { currentUser } from "@/lib/auth/guards";
import { safeCallbackPath } from "@/lib/auth/sign-in";
import { SSO_REFUSALS, ssoProviderName } from "@/lib/auth/sso";
import type { MessageKey } from "@/lib/i18n/messages";
import { titleMetadata } from "@/lib/i18n/metadata";
import { getTranslator } from "@/lib/i18n/server";
import { signInWithSso } from "./actions";

export const generateMetadata = titleMetadata("nav.title.login");

/** The `?error=` codes the login page explains: single sign-on refusals and next-auth's own errors. */
const KNOWN_ERRORS = new Set<string>([
  ...SSO_REFUSALS,
  "AccessDenied",
  "Configuration",
  "OAuthSignInError",
  "OAuthCallbackError",
]);

function errorMessage(error: string | undefined): MessageKey | undefined {
  if (!error) return undefined;
  return (KNOWN_ERRORS.has(error) ? `login.error.${error}` : "login.error.Default") as MessageKey;
}

export default async function LoginPage({
  searchParams,
}: {
  searchParams: Promise<{ callbackUrl?: string; error?: string }>;
}) {
  const { callbackUrl, error } = await searchParams;
  if (await currentUser()) redirect(safeCallbackPath(callbackUrl));
  const t = await getTranslator();
  const ssoName = ssoProviderName();
  const showDemoHint = await demoHintShown();
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
          <LoginForm callbackUrl={callbackUrl} initialError={errorMessage(error)} />
          {ssoName && (
            <form action={signInWithSso} className="mt-4" data-testid="sso-form">
              <div className="mb-4 flex items-center gap-3 text-xs text-slate-500">
                <span className="h-px flex-1 bg-slate-200 dark:bg-slate-800" />
                {t("login.or")}
                <span className="h-px flex-1 bg-slate-200 dark:bg-slate-800" />
              </div>
              <input type="hidden" name="callbackUrl" value={callbackUrl ?? ""} />
              <button
                type="submit"
                className="w-full rounded-md border border-slate-300 bg-white px-3 py-2 font-medium hover:bg-slate-50 dark:border-slate-700 dark:bg-slate-900 dark:hover:bg-slate-800"
              >
                {t("login.sso", { name: ssoName })}
              </button>
            </form>
          )}
        </div>
        {showDemoHint && (
          <p className="mt-4 text-center text-xs text-slate-500" data-testid="demo-hint">
            {t("login.demoHint")}
          </p>
        )}
      </div>
    </main>
  );
}
