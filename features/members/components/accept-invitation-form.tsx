"use client";

import { type FormEvent, useId, useState } from "react";
import { TextField } from "@/components/admin-kit/form";
import { DateText } from "@/components/admin-kit/ui";
import { useI18n } from "@/components/i18n";
import { accountApi } from "@/features/account/components";
import { type Json, toApiError } from "@/lib/client/api";
import { membersApi } from "../client";
import type { InvitationLookup } from "../contracts";

const SHOWN = ["name", "password", "confirmPassword"];

/**
 * Accepts an invitation: a newcomer names themselves and sets a password, someone with an account gives
 * theirs; then signs in with it (POST /api/login) and goes home.
 */
export function AcceptInvitationForm({ token, offer }: { token: string; offer: Json<InvitationLookup> }) {
  const { t } = useI18n();
  const id = useId();
  const newAccount = !offer.accountExists;
  const [name, setName] = useState("");
  const [password, setPassword] = useState("");
  const [confirm, setConfirm] = useState("");
  const [fields, setFields] = useState<Record<string, string[]>>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [signInFailed, setSignInFailed] = useState(false);

  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    setFields({});
    setFormError(null);
    if (newAccount && password !== confirm) {
      setFields({ confirmPassword: [t("account.password.mismatch")] });
      return;
    }
    setBusy(true);
    let email: string;
    try {
      ({ email } = await membersApi.acceptInvitation(token, newAccount ? { name, password } : { password }));
    } catch (error) {
      const err = toApiError(error);
      setFields(err.fields);
      if (!SHOWN.some((n) => err.fields[n])) setFormError(err.message);
      setBusy(false);
      return;
    }
    try {
      const { redirectTo } = await accountApi.signIn({ email, password });
      // A full navigation, so every server component renders with the new session.
      window.location.assign(redirectTo);
    } catch {
      // The invitation is used up either way: from here on the sign-in page is the way in.
      setSignInFailed(true);
      setBusy(false);
    }
  };

  if (signInFailed)
    return (
      <p role="alert" data-testid="accept-sign-in-failed" className="text-sm">
        {t("invite.signInFailed")}{" "}
        <a href="/login" className="text-indigo-600 hover:underline dark:text-indigo-400">
          {t("invite.toLogin")}
        </a>
      </p>
    );

  return (
    <form noValidate onSubmit={onSubmit} data-testid="accept-form" className="space-y-4">
      <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 rounded-md bg-slate-50 p-3 text-sm dark:bg-slate-800/60">
        <dt className="text-slate-500 dark:text-slate-400">{t("invite.tenant")}</dt>
        <dd data-testid="invite-tenant" className="font-medium">
          {offer.tenantName}
        </dd>
        <dt className="text-slate-500 dark:text-slate-400">{t("invite.email")}</dt>
        <dd data-testid="invite-email" className="break-all">
          {offer.email}
        </dd>
        <dt className="text-slate-500 dark:text-slate-400">{t("invite.role")}</dt>
        <dd data-testid="invite-role">
          {t(offer.role === "admin" ? "admin.role.admin" : "admin.role.member")}
        </dd>
        <dt className="text-slate-500 dark:text-slate-400">{t("invite.validUntil")}</dt>
        <dd>
          <DateText value={offer.expiresAt} fallback="—" />
        </dd>
      </dl>
      <p className="text-sm text-slate-600 dark:text-slate-300">
        {newAccount ? t("invite.newLead") : t("invite.existingLead")}
      </p>
      {/* The account's email, for password managers; it is fixed by the invitation. */}
      <input type="email" name="username" autoComplete="username" value={offer.email} readOnly hidden />
      {newAccount && (
        <TextField
          id={id}
          name="name"
          autoComplete="name"
          label={t("invite.name")}
          value={name}
          onChange={setName}
          messages={fields.name}
        />
      )}
      <TextField
        id={id}
        name="password"
        type="password"
        autoComplete={newAccount ? "new-password" : "current-password"}
        label={newAccount ? t("invite.newPassword") : t("invite.password")}
        value={password}
        onChange={setPassword}
        messages={fields.password}
        hint={newAccount ? t("account.password.rules") : undefined}
      />
      {newAccount && (
        <TextField
          id={id}
          name="confirmPassword"
          type="password"
          autoComplete="new-password"
          label={t("account.password.confirm")}
          value={confirm}
          onChange={setConfirm}
          messages={fields.confirmPassword}
        />
      )}
      {formError && (
        <p
          role="alert"
          data-testid="accept-error"
          className="rounded-md bg-red-50 px-3 py-2 text-sm text-red-700 dark:bg-red-950 dark:text-red-300"
        >
          {formError}
        </p>
      )}
      <button
        type="submit"
        data-testid="accept-submit"
        disabled={busy}
        className="w-full rounded-md bg-indigo-600 px-3 py-2 font-medium text-white hover:bg-indigo-500 disabled:opacity-60"
      >
        {busy ? t("invite.accepting") : newAccount ? t("invite.acceptNew") : t("invite.acceptExisting")}
      </button>
    </form>
  );
}
