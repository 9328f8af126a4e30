"use client";

import { type FormEvent, useId, useState } from "react";
import { ErrorNote, LABEL, PRIMARY, SavedNote, Section } from "@/components/admin-kit/ui";
import { type Failure, useFormSubmit } from "@/components/admin-kit/use-form-submit";
import { useLoad } from "@/components/admin-kit/use-load";
import { useI18n } from "@/components/i18n";
import { tenantsApi } from "../client";
import type { WebFetchSettings } from "../contracts";
import { DomainsField, domainMessages, parseDomains } from "./domains-field";

const MODES = ["off", "allowlist", "any"] as const;

/** Whether (and where) the tenant's agent may fetch web pages: off, allow-listed domains, or any public address. */
export function WebFetchSettingsForm() {
  const { t } = useI18n();
  const loaded = useLoad((signal) => tenantsApi.webFetchSettings(signal));
  return (
    <Section title={t("webFetch.title")} lead={t("webFetch.lead")} testId="web-fetch-settings">
      {loaded.error && <ErrorNote message={loaded.error.message} />}
      {loaded.data ? (
        <PolicyForm settings={loaded.data} />
      ) : (
        !loaded.error && <p className="text-sm text-slate-500">{t("schema.loading")}</p>
      )}
    </Section>
  );
}

function PolicyForm({ settings }: { settings: WebFetchSettings }) {
  const { t } = useI18n();
  const id = useId();
  const [mode, setMode] = useState(settings.mode);
  const [text, setText] = useState(settings.domains.join("\n"));
  const [savedAt, setSavedAt] = useState<number | null>(null);
  const domains = parseDomains(text);
  const { fields, formError, saving, reset, submit } = useFormSubmit((error): Failure => {
    const aboutDomains = Object.entries(error.fields).filter(([key]) => key.startsWith("domains"));
    const said = domainMessages(Object.fromEntries(aboutDomains), "domains", domains);
    return said.length
      ? { fields: { domains: said }, formError: null }
      : { fields: {}, formError: error.message };
  });

  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    reset();
    await submit(async () => {
      const saved = await tenantsApi.saveWebFetchSettings({ mode, domains });
      setMode(saved.mode);
      setText(saved.domains.join("\n"));
      setSavedAt(Date.now());
    });
  };

  return (
    <form noValidate onSubmit={onSubmit} data-testid="web-fetch-settings-form" className="space-y-3">
      <fieldset>
        <legend className={LABEL}>{t("webFetch.mode")}</legend>
        <div className="mt-1 space-y-1">
          {MODES.map((m) => (
            <label key={m} className="flex items-center gap-2 text-sm">
              <input
                type="radio"
                name={`${id}-mode`}
                value={m}
                data-testid={`web-fetch-mode-${m}`}
                checked={mode === m}
                onChange={() => setMode(m)}
              />
              {t(`webFetch.mode.${m}`)}
            </label>
          ))}
        </div>
      </fieldset>
      {mode === "allowlist" && (
        <DomainsField
          id={id}
          name="webFetchDomains"
          label={t("webFetch.domains")}
          hint={t("webFetch.domainsHint")}
          placeholder={"docs.example.com\nexample.org"}
          value={text}
          onChange={setText}
          messages={fields.domains ?? []}
        />
      )}
      <div className="flex items-center gap-3">
        <button type="submit" data-testid="web-fetch-settings-save" disabled={saving} className={PRIMARY}>
          {saving ? t("admin.saving") : t("gov.save")}
        </button>
        <SavedNote at={savedAt} />
      </div>
      {formError && <ErrorNote message={formError} />}
    </form>
  );
}
