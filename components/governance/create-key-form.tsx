"use client";

import { type FormEvent, useId, useState } from "react";
import { useI18n } from "@/components/i18n";
import { type ApiKey, governanceApi, toGovernanceError } from "./api";
import { ErrorNote, FieldError, INPUT, LABEL, otherMessages, PRIMARY } from "./ui";

/** Names and creates a key; the parent shows its secret. */
export function CreateKeyForm({
  onCreated,
}: {
  onCreated: (created: { secret: string; key: ApiKey }) => void;
}) {
  const { t } = useI18n();
  const id = useId();
  const [name, setName] = useState("");
  const [fields, setFields] = useState<Record<string, string[]>>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);

  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    setSaving(true);
    setFields({});
    setFormError(null);
    try {
      const created = await governanceApi.createKey(name);
      setName("");
      onCreated(created);
    } catch (error) {
      const err = toGovernanceError(error);
      if (err.fields.name) setFields(err.fields);
      else setFormError([err.message, ...otherMessages(err.fields, ["name"])].join(" "));
    } finally {
      setSaving(false);
    }
  };

  const invalid = (fields.name?.length ?? 0) > 0;
  return (
    <form noValidate onSubmit={onSubmit} data-testid="create-key-form" className="space-y-2">
      <label htmlFor={`${id}-name`} className={LABEL}>
        {t("gov.keys.name")}
      </label>
      <div className="flex flex-col gap-2 sm:flex-row sm:items-start">
        <div className="min-w-0 flex-1">
          <input
            id={`${id}-name`}
            data-testid="create-key-name"
            value={name}
            autoComplete="off"
            placeholder={t("gov.keys.namePlaceholder")}
            aria-invalid={invalid || undefined}
            aria-describedby={invalid ? `${id}-name-error` : undefined}
            onChange={(e) => setName(e.target.value)}
            className={INPUT}
          />
          <FieldError id={`${id}-name-error`} field="name" messages={fields.name} />
        </div>
        <button type="submit" data-testid="create-key-submit" disabled={saving} className={PRIMARY}>
          {saving ? t("gov.keys.creating") : t("gov.keys.create")}
        </button>
      </div>
      {formError && <ErrorNote message={formError} />}
    </form>
  );
}
