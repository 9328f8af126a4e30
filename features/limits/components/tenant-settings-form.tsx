"use client";

import { type FormEvent, useId, useState } from "react";
import { TextField } from "@/components/admin-kit/form";
import {
  ErrorNote,
  FieldError,
  type FieldMessages,
  messagesOf,
  otherMessages,
  PRIMARY,
  SavedNote,
} from "@/components/admin-kit/ui";
import { explainFieldsOrMessage, useFormSubmit } from "@/components/admin-kit/use-form-submit";
import { useI18n } from "@/components/i18n";
import type { Json } from "@/lib/client/api";
import { limitsApi } from "../client";
import type { GovernanceSettingsAnswer } from "../contracts";

const SHOWN = [
  "retentionDays",
  "archiveAfterDays",
  "cacheAliases",
  "cacheTtlSeconds",
  "maxOutputTokensDefault",
] as const;

/** A whole number, or null when the text is not one. */
const toInteger = (text: string): number | null => (/^\s*\d+\s*$/.test(text) ? Number(text) : null);

/** The tenant's retention, response cache and output ceiling. */
export function TenantSettingsForm(props: {
  settings: Json<GovernanceSettingsAnswer>;
  onSaved: (next: Json<GovernanceSettingsAnswer>) => void;
}) {
  const { t } = useI18n();
  const id = useId();
  const [retentionDays, setRetentionDays] = useState(String(props.settings.retentionDays));
  const [cacheAliases, setCacheAliases] = useState<string[]>(props.settings.cacheAliases);
  const [cacheTtlSeconds, setCacheTtlSeconds] = useState(String(props.settings.cacheTtlSeconds));
  const [maxOutput, setMaxOutput] = useState(String(props.settings.maxOutputTokensDefault));
  const [archiveAfter, setArchiveAfter] = useState(
    props.settings.archiveAfterDays === null ? "" : String(props.settings.archiveAfterDays),
  );
  const archive = props.settings.archive;
  const { fields, formError, saving, reset, submit } = useFormSubmit(explainFieldsOrMessage);
  const [savedAt, setSavedAt] = useState<number | null>(null);

  // Aliases the tenant caches that the gateway no longer has still show, so they can be unticked.
  const aliases = [...new Set([...props.settings.aliases, ...props.settings.cacheAliases])];

  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    // Whole numbers are checked here; ranges and aliases by the server, whose messages name the field.
    const days = toInteger(retentionDays);
    const ttl = toInteger(cacheTtlSeconds);
    const ceiling = toInteger(maxOutput);
    // Empty: the deployment's default (null).
    const archiveDays = archiveAfter.trim() === "" ? null : toInteger(archiveAfter);
    const archiveBad = archiveAfter.trim() !== "" && archiveDays === null;
    const local: FieldMessages = {};
    if (archiveBad) local.archiveAfterDays = [t("gov.limits.wholeNumber")];
    if (days === null) local.retentionDays = [t("gov.limits.wholeNumber")];
    if (ttl === null) local.cacheTtlSeconds = [t("gov.limits.wholeNumber")];
    if (ceiling === null) local.maxOutputTokensDefault = [t("gov.limits.wholeNumber")];
    reset(local);
    if (days === null || ttl === null || ceiling === null || archiveBad) return;
    await submit(async () => {
      const next = await limitsApi.saveSettings({
        retentionDays: days,
        cacheAliases,
        cacheTtlSeconds: ttl,
        maxOutputTokensDefault: ceiling,
        // Sent only where an archive exists, so a form without the field changes nothing.
        ...(archive.configured ? { archiveAfterDays: archiveDays } : {}),
      });
      setSavedAt(Date.now());
      props.onSaved(next);
    });
  };

  const invalid = (field: string) => messagesOf(fields, field).length > 0;
  const other = otherMessages(fields, SHOWN);
  return (
    <form
      noValidate
      onSubmit={onSubmit}
      data-testid="tenant-settings-form"
      aria-busy={saving}
      className="space-y-4"
    >
      <div className="grid gap-4 md:grid-cols-[minmax(0,14rem)_minmax(0,1fr)]">
        <div className="min-w-0">
          <TextField
            id={id}
            name="retentionDays"
            testId="settings-retentionDays"
            label={t("gov.settings.retentionDays")}
            inputMode="numeric"
            value={retentionDays}
            hint={t("gov.settings.retentionHint")}
            messages={messagesOf(fields, "retentionDays")}
            onChange={setRetentionDays}
            controlClassName="tabular-nums"
          />
          <TextField
            id={id}
            name="maxOutputTokensDefault"
            testId="settings-maxOutputTokensDefault"
            label={t("gov.settings.maxOutputTokens")}
            inputMode="numeric"
            value={maxOutput}
            hint={t("gov.settings.maxOutputTokensHint")}
            messages={messagesOf(fields, "maxOutputTokensDefault")}
            onChange={setMaxOutput}
            controlClassName="tabular-nums"
            className="mt-4 min-w-0"
          />
          {archive.configured ? (
            <TextField
              id={id}
              name="archiveAfterDays"
              testId="settings-archiveAfterDays"
              label={t("gov.settings.archiveAfterDays")}
              inputMode="numeric"
              value={archiveAfter}
              hint={t("gov.settings.archiveHint", {
                fallback:
                  archive.defaultDays === null
                    ? t("gov.settings.archiveNoDefault")
                    : String(archive.defaultDays),
              })}
              messages={messagesOf(fields, "archiveAfterDays")}
              onChange={setArchiveAfter}
              controlClassName="tabular-nums"
              className="mt-4 min-w-0"
            />
          ) : (
            <p className="mt-4 text-xs text-slate-500 dark:text-slate-400" data-testid="settings-archive-off">
              {t("gov.settings.archiveOff")}
            </p>
          )}
        </div>
        <fieldset
          className="min-w-0 space-y-3 rounded-md border border-slate-200 p-3 dark:border-slate-700"
          aria-describedby={invalid("cacheAliases") ? `${id}-aliases-error` : undefined}
        >
          <legend className="px-1 text-sm font-medium">{t("gov.settings.cache")}</legend>
          <p className="text-xs text-slate-500 dark:text-slate-400">{t("gov.settings.cacheHint")}</p>
          <div className="flex flex-wrap gap-x-4 gap-y-2" data-testid="settings-cacheAliases">
            {aliases.length === 0 && <p className="text-sm text-slate-500">{t("gov.settings.noAliases")}</p>}
            {aliases.map((alias) => (
              <label key={alias} className="flex min-w-0 items-center gap-2 text-sm">
                <input
                  type="checkbox"
                  data-testid="cache-alias"
                  value={alias}
                  checked={cacheAliases.includes(alias)}
                  onChange={(e) => {
                    const on = e.target.checked;
                    setCacheAliases((list) => (on ? [...list, alias] : list.filter((a) => a !== alias)));
                  }}
                  className="h-4 w-4 accent-indigo-600"
                />
                <span className="truncate font-mono text-xs">{alias}</span>
              </label>
            ))}
          </div>
          <FieldError
            id={`${id}-aliases-error`}
            field="cacheAliases"
            messages={messagesOf(fields, "cacheAliases")}
          />
          <TextField
            id={id}
            name="cacheTtlSeconds"
            testId="settings-cacheTtlSeconds"
            label={t("gov.settings.cacheTtl")}
            inputMode="numeric"
            value={cacheTtlSeconds}
            messages={messagesOf(fields, "cacheTtlSeconds")}
            onChange={setCacheTtlSeconds}
            controlClassName="tabular-nums"
            className="max-w-[14rem]"
          />
        </fieldset>
      </div>
      {other.length > 0 && <ErrorNote message={other.join(" ")} />}
      {formError && <ErrorNote message={formError} />}
      <div className="flex flex-wrap items-center gap-2">
        <button type="submit" data-testid="settings-save" disabled={saving} className={PRIMARY}>
          {saving ? t("gov.saving") : t("gov.save")}
        </button>
        <SavedNote at={savedAt} />
      </div>
    </form>
  );
}
