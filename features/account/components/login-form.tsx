"use client";

import { type FormEvent, useState } from "react";
import { useI18n } from "@/components/i18n";
import { safeCallbackPath } from "@/lib/auth/callback-path";
import { toApiError } from "@/lib/client/api";
import type { MessageKey } from "@/lib/i18n/messages";
import { accountApi } from "../client";

const MESSAGE_BY_STATUS: Record<number, MessageKey> = {
  401: "login.wrong",
  422: "login.invalid",
  429: "login.throttled",
  // The database is away: the sign-in could not be checked, which is not a wrong password.
  503: "login.unavailable",
};

export function LoginForm({
  callbackUrl,
  initialError,
}: {
  callbackUrl?: string;
  initialError?: MessageKey;
}) {
  const { t } = useI18n();
  // initialError: why the last sign-in was refused (e.g. single sign-on), from the page's ?error=.
  const [error, setError] = useState<MessageKey | null>(initialError ?? null);
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setBusy(true);
    setError(null);
    try {
      const { redirectTo } = await accountApi.signIn({
        email: String(form.get("email") ?? ""),
        password: String(form.get("password") ?? ""),
        callbackUrl,
      });
      // A full navigation, so every server component renders with the new session; the browser checks the target
      // against its own origin too, with the server's rule.
      window.location.assign(safeCallbackPath(redirectTo, window.location.origin));
      return;
    } catch (cause) {
      setError(MESSAGE_BY_STATUS[toApiError(cause).status] ?? "login.failed");
    }
    setBusy(false);
  }

  const input =
    "mt-1 w-full rounded-md border border-slate-300 bg-white px-3 py-2 outline-none focus:border-indigo-500 focus:ring-2 focus:ring-indigo-200 dark:border-slate-700 dark:bg-slate-900 dark:focus:ring-indigo-900";
  return (
    <form onSubmit={submit} className="space-y-4" noValidate>
      <label className="block text-sm font-medium">
        {t("login.email")}
        {/* biome-ignore lint/a11y/noAutofocus: the sign-in page has one job */}
        <input name="email" type="email" autoComplete="username" required autoFocus className={input} />
      </label>
      <label className="block text-sm font-medium">
        {t("login.password")}
        <input name="password" type="password" autoComplete="current-password" required className={input} />
      </label>
      {error && (
        <p
          role="alert"
          data-testid="login-error"
          className="rounded-md bg-red-50 px-3 py-2 text-sm text-red-700 dark:bg-red-950 dark:text-red-300"
        >
          {t(error)}
        </p>
      )}
      <button
        type="submit"
        disabled={busy}
        className="w-full rounded-md bg-indigo-600 px-3 py-2 font-medium text-white hover:bg-indigo-500 disabled:opacity-60"
      >
        {busy ? t("login.submitting") : t("login.submit")}
      </button>
    </form>
  );
}
