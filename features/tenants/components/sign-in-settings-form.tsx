"use client";

import { type FormEvent, useId, useState } from "react";
import { ErrorNote, LABEL, PRIMARY, SavedNote, Section } from "@/components/admin-kit/ui";
import { type Failure, useFormSubmit } from "@/components/admin-kit/use-form-submit";
import { useLoad } from "@/components/admin-kit/use-load";
import { useI18n } from "@/components/i18n";
import { tenantsApi } from "../client";
import type { SignInSettings } from "../contracts";
import { DomainsField, domainMessages, parseDomains } from "./domains-field";

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
  const [savedAt, setSavedAt] = useState<number | null>(null);
  const domains = parseDomains(text);
  const { fields, formError, saving, reset, submit } = useFormSubmit((error): Failure => {
    const said = domainMessages(error.fields, "ssoDomains", domains);
    return said.length
      ? { fields: { ssoDomains: said }, formError: null }
      : { fields: {}, formError: error.message };
  });

  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    reset();
    await submit(async () => {
      const saved = await tenantsApi.saveSignInSettings({ ssoDomains: domains });
      setText(saved.ssoDomains.join("\n"));
      setSavedAt(Date.now());
    });
  };

  return (
    <form noValidate onSubmit={onSubmit} data-testid="sign-in-settings-form" className="space-y-3">
      <SsoStatus settings={settings} />
      <DomainsField
        id={id}
        name="ssoDomains"
        label={t("admin.signIn.domains")}
        hint={t("admin.signIn.domainsHint")}
        placeholder={"example.com\nexample.org"}
        value={text}
        onChange={setText}
        messages={fields.ssoDomains ?? []}
      />
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
