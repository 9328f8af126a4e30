"use client";

import { type FormEvent, useId, useState } from "react";
import { TextField } from "@/components/admin-kit/form";
import { ErrorNote, otherMessages, PRIMARY } from "@/components/admin-kit/ui";
import { type Failure, useFormSubmit } from "@/components/admin-kit/use-form-submit";
import { useI18n } from "@/components/i18n";
import type { ApiError, Json } from "@/lib/client/api";
import { parseToolNames } from "../allowed-tools";
import { keysApi } from "../client";
import type { CreatedKey } from "../contracts";
import { parseCount } from "../expiry";

const isToolsField = (field: string) => field === "allowedTools" || field.startsWith("allowedTools.");
const EXPIRY_FIELDS = ["expiresInDays", "expiresAt"];

/**
 * The name's and the tool list's messages under them; otherwise the server's message and any other fields', as one
 * line for the form.
 */
const explain = (error: ApiError): Failure => {
  const tools = Object.entries(error.fields)
    .filter(([field]) => isToolsField(field))
    .flatMap(([, list]) => list);
  const expiry = EXPIRY_FIELDS.flatMap((field) => error.fields[field] ?? []);
  const fields = {
    ...(error.fields.name ? { name: error.fields.name } : {}),
    ...(tools.length ? { allowedTools: tools } : {}),
    ...(expiry.length ? { expiresInDays: expiry } : {}),
  };
  const rest = otherMessages(error.fields, [
    "name",
    ...EXPIRY_FIELDS,
    ...Object.keys(error.fields).filter(isToolsField),
  ]);
  return Object.keys(fields).length
    ? { fields, formError: rest.length ? rest.join(" ") : null }
    : { fields: {}, formError: [error.message, ...rest].join(" ") };
};

/** Names and creates a key, with an optional expiry in days; the parent shows its secret. */
export function CreateKeyForm({ onCreated }: { onCreated: (created: Json<CreatedKey>) => void }) {
  const { t } = useI18n();
  const id = useId();
  const [name, setName] = useState("");
  const [tools, setTools] = useState("");
  const [days, setDays] = useState("");
  const { fields, formError, saving, reset, submit } = useFormSubmit(explain);

  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    const expiresInDays = parseCount(days);
    if (Number.isNaN(expiresInDays)) {
      reset({ expiresInDays: [t("keyLife.daysInvalid")] });
      return;
    }
    reset();
    await submit(async () => {
      const allowedTools = parseToolNames(tools);
      const created = await keysApi.create({
        name,
        allowedTools: allowedTools.length ? allowedTools : null,
        expiresInDays,
      });
      setName("");
      setTools("");
      setDays("");
      onCreated(created);
    });
  };

  return (
    <form noValidate onSubmit={onSubmit} data-testid="create-key-form" className="space-y-2">
      <div className="flex flex-col gap-2 sm:flex-row sm:items-start">
        <TextField
          id={id}
          name="name"
          testId="create-key-name"
          label={t("gov.keys.name")}
          value={name}
          placeholder={t("gov.keys.namePlaceholder")}
          messages={fields.name}
          onChange={setName}
          className="min-w-0 flex-1"
        />
        <button
          type="submit"
          data-testid="create-key-submit"
          disabled={saving}
          className={`${PRIMARY} sm:mt-5`}
        >
          {saving ? t("gov.keys.creating") : t("gov.keys.create")}
        </button>
      </div>
      <TextField
        id={id}
        name="allowedTools"
        testId="create-key-tools"
        label={t("mcpKeys.createLabel")}
        value={tools}
        spellCheck={false}
        placeholder={t("mcpKeys.namesPlaceholder")}
        hint={t("mcpKeys.createHint")}
        messages={fields.allowedTools}
        onChange={setTools}
        controlClassName="font-mono"
        className="max-w-xl"
      />
      <TextField
        id={id}
        name="expiresInDays"
        testId="create-key-expiry"
        type="number"
        inputMode="numeric"
        min={1}
        max={1826}
        label={t("keyLife.createLabel")}
        value={days}
        hint={t("keyLife.createHint")}
        messages={fields.expiresInDays}
        onChange={setDays}
        className="max-w-xs"
      />
      {formError && <ErrorNote message={formError} />}
    </form>
  );
}
