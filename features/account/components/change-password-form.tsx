"use client";

import { type FormEvent, useId, useState } from "react";
import { DoneNote, TextField } from "@/components/admin-kit/form";
import { ErrorNote, PRIMARY, Section } from "@/components/admin-kit/ui";
import { explainWithFields, useFormSubmit } from "@/components/admin-kit/use-form-submit";
import { useI18n } from "@/components/i18n";
import { accountApi } from "../client";

const SHOWN = ["currentPassword", "newPassword", "confirmPassword"];

/** Changes your own password: the current one, the new one twice. Other sessions end; this one stays. */
export function ChangePasswordForm() {
  const { t } = useI18n();
  const id = useId();
  const [current, setCurrent] = useState("");
  const [next, setNext] = useState("");
  const [confirm, setConfirm] = useState("");
  const [done, setDone] = useState(false);
  const { fields, formError, saving, reset, submit } = useFormSubmit(explainWithFields(SHOWN));

  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    setDone(false);
    if (next !== confirm) {
      reset({ confirmPassword: [t("account.password.mismatch")] });
      return;
    }
    reset();
    await submit(async () => {
      await accountApi.changePassword({ currentPassword: current, newPassword: next });
      setCurrent("");
      setNext("");
      setConfirm("");
      setDone(true);
    });
  };

  return (
    <Section title={t("account.password.title")} lead={t("account.password.lead")} testId="change-password">
      <form noValidate onSubmit={onSubmit} data-testid="change-password-form" className="max-w-md space-y-3">
        <TextField
          id={id}
          name="currentPassword"
          type="password"
          autoComplete="current-password"
          label={t("account.password.current")}
          value={current}
          onChange={setCurrent}
          messages={fields.currentPassword}
        />
        <TextField
          id={id}
          name="newPassword"
          type="password"
          autoComplete="new-password"
          label={t("account.password.new")}
          value={next}
          onChange={setNext}
          messages={fields.newPassword}
          hint={t("account.password.rules")}
        />
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
        <button type="submit" data-testid="change-password-submit" disabled={saving} className={PRIMARY}>
          {saving ? t("admin.saving") : t("account.password.submit")}
        </button>
        {formError && <ErrorNote message={formError} testId="change-password-error" />}
        <DoneNote testId="change-password-done" text={done ? t("account.password.done") : null} />
      </form>
    </Section>
  );
}
