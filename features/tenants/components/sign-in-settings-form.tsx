"use client";

import { type FormEvent, useId, useState } from "react";
import { ErrorNote, INPUT, LABEL, PRIMARY, SavedNote, Section } from "@/components/admin-kit/ui";
import { useLoad } from "@/components/admin-kit/use-load";
import { useI18n } from "@/components/i18n";
import { toApiError } from "@/lib/client/api";
import { tenantsApi } from "../client";
import type { SignInSettings } from "../contracts";

/** Domains typed one per line or separated by commas or spaces. */
export const parseDomains = (text: string) =>
  text
    .split(/[\s,;]+/)
    .map((d) => d.trim())
    .filter(Boolean);

/** The server's messages per domain ("ssoDomains.2") said with the domain they are about. */
function domainMessages(fields: Record<string, string[]>, domains: string[]): string[] {
  return Object.entries(fields).flatMap(([key, messages]) => {
    const index = key.match(/^ssoDomains\.(\d+)$/)?.[1];
    const domain = index === undefined ? undefined : domains[Number(index)];
    return messages.map((m) => (domain ? `${domain}: ${m}` : m));
  });
}

/** Which email domains may join the tenant through single sign-on (as members): the super admin edits them. */
export function SignInSettingsForm() {
  const { t } = useI18n();
  const loaded = useLoad((signal) => tenantsApi.signInSettings(signal));
  return (
    <Section title={t("admin.signIn.title")} lead={t("admin.signIn.lead")} testId="sign-in-settings">
      {loaded.error && <ErrorNote message={loaded.error.message} />}
      {loaded.data ? (
        loaded.data.canEdit ? (
          <DomainsForm settings={loaded.data} />
        ) : (
          <GrantedDomains settings={loaded.data} />
        )
      ) : (
        !loaded.error && <p className="text-sm text-slate-500">{t("schema.loading")}</p>
      )}
    </Section>
  );
}

function SsoStatus({ settings }: { settings: SignInSettings }) {
  const { t } = useI18n();
  return (
    <p data-testid="sso-status" className="text-sm text-slate-600 dark:text-slate-300">
      {settings.sso ? t("admin.signIn.ssoOn", { name: settings.sso }) : t("admin.signIn.ssoOff")}
    </p>
  );
}

/** What a tenant admin sees: the domains the platform admin granted, read-only. */
function GrantedDomains({ settings }: { settings: SignInSettings }) {
  const { t } = useI18n();
  return (
    <div data-testid="sign-in-settings-readonly" className="space-y-2">
      <SsoStatus settings={settings} />
      <p className={LABEL}>{t("admin.signIn.domains")}</p>
      {settings.ssoDomains.length ? (
        <ul data-testid="sso-domains" className="font-mono text-sm">
          {settings.ssoDomains.map((d) => (
            <li key={d}>{d}</li>
          ))}
        </ul>
      ) : (
        <p data-testid="sso-domains" className="text-sm text-slate-500 dark:text-slate-400">
          {t("admin.signIn.none")}
        </p>
      )}
      <p data-testid="sso-domains-granted" className="text-xs text-slate-500 dark:text-slate-400">
        {t("admin.signIn.grantedByPlatform")}
      </p>
    </div>
  );
}

function DomainsForm({ settings }: { settings: SignInSettings }) {
  const { t } = useI18n();
  const id = useId();
  const [text, setText] = useState(settings.ssoDomains.join("\n"));
  const [messages, setMessages] = useState<string[]>([]);
  const [formError, setFormError] = useState<string | null>(null);
  const [savedAt, setSavedAt] = useState<number | null>(null);
  const [saving, setSaving] = useState(false);

  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    const domains = parseDomains(text);
    setSaving(true);
    setMessages([]);
    setFormError(null);
    try {
      const saved = await tenantsApi.saveSignInSettings({ ssoDomains: domains });
      setText(saved.ssoDomains.join("\n"));
      setSavedAt(Date.now());
    } catch (error) {
      const err = toApiError(error);
      const said = domainMessages(err.fields, domains);
      if (said.length) setMessages(said);
      else setFormError(err.message);
    } finally {
      setSaving(false);
    }
  };

  const invalid = messages.length > 0;
  return (
    <form noValidate onSubmit={onSubmit} data-testid="sign-in-settings-form" className="space-y-3">
      <SsoStatus settings={settings} />
      <div>
        <label htmlFor={`${id}-domains`} className={LABEL}>
          {t("admin.signIn.domains")}
        </label>
        <textarea
          id={`${id}-domains`}
          data-testid="field-ssoDomains"
          rows={3}
          value={text}
          placeholder={"example.com\nexample.org"}
          aria-invalid={invalid || undefined}
          aria-describedby={`${id}-hint${invalid ? ` ${id}-error` : ""}`}
          onChange={(e) => setText(e.target.value)}
          className={`mt-1 font-mono ${INPUT}`}
        />
        <p id={`${id}-hint`} className="mt-1 text-xs text-slate-500 dark:text-slate-400">
          {t("admin.signIn.domainsHint")}
        </p>
        {invalid && (
          <ul
            id={`${id}-error`}
            data-testid="field-error-ssoDomains"
            className="mt-1 space-y-0.5 text-xs text-red-700 dark:text-red-300"
          >
            {messages.map((m) => (
              <li key={m}>{m}</li>
            ))}
          </ul>
        )}
      </div>
      <div className="flex items-center gap-3">
        <button type="submit" data-testid="sign-in-settings-save" disabled={saving} className={PRIMARY}>
          {saving ? t("admin.saving") : t("gov.save")}
        </button>
        <SavedNote at={savedAt} />
      </div>
      {formError && <ErrorNote message={formError} />}
    </form>
  );
}
