"use client";

import { type FormEvent, useId, useState } from "react";
import { TextField } from "@/components/admin-kit/form";
import { BUTTON, ErrorNote, PRIMARY } from "@/components/admin-kit/ui";
import { type Failure, useFormSubmit } from "@/components/admin-kit/use-form-submit";
import { useI18n } from "@/components/i18n";
import type { ApiError } from "@/lib/client/api";
import { parseToolNames } from "../allowed-tools";
import { keysApi } from "../client";

/** Every message about the list (the server names each bad entry: allowedTools.0, …) under the names input. */
const explain = (error: ApiError): Failure => {
  const messages = Object.entries(error.fields)
    .filter(([field]) => field === "allowedTools" || field.startsWith("allowedTools."))
    .flatMap(([, list]) => list);
  return messages.length
    ? { fields: { allowedTools: messages }, formError: null }
    : { fields: {}, formError: error.message };
};

/** The tools one key may call over /mcp: every tool the tenant offers there, or only the names given. */
export function AllowedToolsForm(props: {
  keyId: string;
  keyName: string;
  allowedTools: string[] | null;
  onSaved: () => void;
  onClose: () => void;
}) {
  const { t } = useI18n();
  const id = useId();
  const [only, setOnly] = useState(props.allowedTools !== null);
  const [names, setNames] = useState((props.allowedTools ?? []).join(", "));
  const { fields, formError, saving, reset, submit } = useFormSubmit(explain);

  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    reset();
    await submit(async () => {
      await keysApi.update(props.keyId, { allowedTools: only ? parseToolNames(names) : null });
      props.onSaved();
      props.onClose();
    });
  };

  return (
    <form
      noValidate
      onSubmit={onSubmit}
      aria-busy={saving}
      data-testid="key-tools-form"
      className="space-y-3"
    >
      <div className="space-y-1">
        <p className="text-sm font-medium">{t("mcpKeys.title", { name: props.keyName })}</p>
        <p className="text-xs text-slate-600 dark:text-slate-300">{t("mcpKeys.lead")}</p>
      </div>
      <fieldset className="space-y-2">
        <legend className="sr-only">{t("mcpKeys.column")}</legend>
        <label className="flex items-center gap-2 text-sm">
          <input
            type="radio"
            name={`${id}-mode`}
            data-testid="key-tools-all"
            checked={!only}
            onChange={() => setOnly(false)}
          />
          {t("mcpKeys.every")}
        </label>
        <label className="flex items-center gap-2 text-sm">
          <input
            type="radio"
            name={`${id}-mode`}
            data-testid="key-tools-only"
            checked={only}
            onChange={() => setOnly(true)}
          />
          {t("mcpKeys.only")}
        </label>
      </fieldset>
      {only && (
        <TextField
          id={id}
          name="allowedTools"
          testId="key-tools-names"
          label={t("mcpKeys.names")}
          value={names}
          spellCheck={false}
          placeholder={t("mcpKeys.namesPlaceholder")}
          hint={t("mcpKeys.namesHint")}
          messages={fields.allowedTools}
          onChange={setNames}
          controlClassName="font-mono"
        />
      )}
      {formError && <ErrorNote message={formError} />}
      <div className="flex gap-2">
        <button type="submit" data-testid="key-tools-save" disabled={saving} className={PRIMARY}>
          {saving ? t("mcpKeys.saving") : t("mcpKeys.save")}
        </button>
        <button type="button" onClick={props.onClose} className={BUTTON}>
          {t("mcpKeys.close")}
        </button>
      </div>
    </form>
  );
}
