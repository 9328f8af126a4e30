"use client";

import { type FormEvent, useId, useState } from "react";
import { ErrorNote, FieldError, INPUT, LABEL, otherMessages, PRIMARY } from "@/components/admin-kit/ui";
import { type Failure, useFormSubmit } from "@/components/admin-kit/use-form-submit";
import { useI18n } from "@/components/i18n";
import type { ApiError, Json } from "@/lib/client/api";
import { parseToolNames } from "../allowed-tools";
import { keysApi } from "../client";
import type { CreatedKey } from "../contracts";

const isToolsField = (field: string) => field === "allowedTools" || field.startsWith("allowedTools.");

/**
 * The name's and the tool list's messages under them; otherwise the server's message and any other fields', as one
 * line for the form.
 */
const explain = (error: ApiError): Failure => {
  const tools = Object.entries(error.fields)
    .filter(([field]) => isToolsField(field))
    .flatMap(([, list]) => list);
  const fields = {
    ...(error.fields.name ? { name: error.fields.name } : {}),
    ...(tools.length ? { allowedTools: tools } : {}),
  };
  const rest = otherMessages(error.fields, ["name", ...Object.keys(error.fields).filter(isToolsField)]);
  return Object.keys(fields).length
    ? { fields, formError: rest.length ? rest.join(" ") : null }
    : { fields: {}, formError: [error.message, ...rest].join(" ") };
};

/** Names and creates a key; the parent shows its secret. */
export function CreateKeyForm({ onCreated }: { onCreated: (created: Json<CreatedKey>) => void }) {
  const { t } = useI18n();
  const id = useId();
  const [name, setName] = useState("");
  const [tools, setTools] = useState("");
  const { fields, formError, saving, reset, submit } = useFormSubmit(explain);

  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    reset();
    await submit(async () => {
      const allowedTools = parseToolNames(tools);
      const created = await keysApi.create({ name, allowedTools: allowedTools.length ? allowedTools : null });
      setName("");
      setTools("");
      onCreated(created);
    });
  };

  const invalid = (fields.name?.length ?? 0) > 0;
  const toolsInvalid = (fields.allowedTools?.length ?? 0) > 0;
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
      <div className="max-w-xl">
        <label htmlFor={`${id}-tools`} className={LABEL}>
          {t("mcpKeys.createLabel")}
        </label>
        <input
          id={`${id}-tools`}
          data-testid="create-key-tools"
          value={tools}
          autoComplete="off"
          spellCheck={false}
          placeholder={t("mcpKeys.namesPlaceholder")}
          aria-invalid={toolsInvalid || undefined}
          aria-describedby={`${id}-tools-hint${toolsInvalid ? ` ${id}-tools-error` : ""}`}
          onChange={(e) => setTools(e.target.value)}
          className={`${INPUT} mt-1 font-mono`}
        />
        <p id={`${id}-tools-hint`} className="mt-1 text-xs text-slate-500 dark:text-slate-400">
          {t("mcpKeys.createHint")}
        </p>
        <FieldError id={`${id}-tools-error`} field="allowedTools" messages={fields.allowedTools} />
      </div>
      {formError && <ErrorNote message={formError} />}
    </form>
  );
}
