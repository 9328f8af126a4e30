"use client";

import { type FormEvent, useId, useState } from "react";
import { ErrorNote, FieldError, INPUT, LABEL, otherMessages, PRIMARY } from "@/components/admin-kit/ui";
import { type Failure, useFormSubmit } from "@/components/admin-kit/use-form-submit";
import { useI18n } from "@/components/i18n";
import type { ApiError, Json } from "@/lib/client/api";
import { keysApi } from "../client";
import type { CreatedKey } from "../contracts";

/** The name's messages under it; otherwise the server's message and any other fields', as one line for the form. */
const explain = (error: ApiError): Failure =>
  error.fields.name
    ? { fields: error.fields, formError: null }
    : { fields: {}, formError: [error.message, ...otherMessages(error.fields, ["name"])].join(" ") };

/** Names and creates a key; the parent shows its secret. */
export function CreateKeyForm({ onCreated }: { onCreated: (created: Json<CreatedKey>) => void }) {
  const { t } = useI18n();
  const id = useId();
  const [name, setName] = useState("");
  const { fields, formError, saving, reset, submit } = useFormSubmit(explain);

  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    reset();
    await submit(async () => {
      const created = await keysApi.create({ name });
      setName("");
      onCreated(created);
    });
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
