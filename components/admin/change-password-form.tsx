"use client";

import { type FormEvent, useId, useState } from "react";
import { toGovernanceError } from "@/components/governance/api";
import { ErrorNote, otherMessages, PRIMARY, Section } from "@/components/governance/ui";
import { useI18n } from "@/components/i18n";
import { adminApi } from "./api";
import { DoneNote, TextField } from "./form";

const SHOWN = ["currentPassword", "newPassword", "confirmPassword"];

/** Changes your own password: the current one, the new one twice. Other sessions end; this one stays. */
export function ChangePasswordForm() {
  const { t } = useI18n();
  const id = useId();
  const [current, setCurrent] = useState("");
  const [next, setNext] = useState("");
  const [confirm, setConfirm] = useState("");
  const [fields, setFields] = useState<Record<string, string[]>>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [done, setDone] = useState(false);
  const [saving, setSaving] = useState(false);

  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    setFields({});
    setFormError(null);
    setDone(false);
    if (next !== confirm) {
      setFields({ confirmPassword: [t("account.password.mismatch")] });
      return;
    }
    setSaving(true);
    try {
      await adminApi.changePassword({ currentPassword: current, newPassword: next });
      setCurrent("");
      setNext("");
      setConfirm("");
      setDone(true);
    } catch (error) {
      const err = toGovernanceError(error);
      setFields(err.fields);
      const rest = otherMessages(err.fields, SHOWN);
      if (!SHOWN.some((name) => err.fields[name])) setFormError([err.message, ...rest].join(" "));
      else if (rest.length) setFormError(rest.join(" "));
    } finally {
      setSaving(false);
    }
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
