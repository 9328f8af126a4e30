"use client";

import { useId, useState } from "react";
import { SelectField, TextField } from "@/components/admin-kit/form";
import { BUTTON, CARD, ErrorNote, messagesOf, PRIMARY } from "@/components/admin-kit/ui";
import { explainWithFields, useFormSubmit } from "@/components/admin-kit/use-form-submit";
import { useI18n } from "@/components/i18n";
import type { AlertChannelView } from "../contracts";

export type ChannelDraft = {
  kind: "webhook" | "slack" | "email";
  name: string;
  url: string;
  secret: string;
  to: string;
};
const SHOWN = ["name", "kind", "config", "config.url", "config.secret", "config.to"];

/** What the form sends: on an edit, a secret or Slack URL left empty is left out (the stored one is kept). */
export function channelBody(d: ChannelDraft, editing: boolean) {
  const config: Record<string, unknown> =
    d.kind === "email"
      ? { to: d.to.split(/[\s,]+/).filter(Boolean) }
      : d.kind === "slack"
        ? d.url.trim() || !editing
          ? { url: d.url.trim() }
          : {}
        : { url: d.url.trim(), ...(d.secret || !editing ? { secret: d.secret } : {}) };
  return { name: d.name, config };
}

/** Create or edit a channel: a webhook (URL and signing secret), a Slack incoming webhook, or email addresses. */
export function ChannelForm(props: {
  editing: AlertChannelView | null;
  save: (draft: ChannelDraft) => Promise<void>;
  onCancel: () => void;
}) {
  const { t } = useI18n();
  const id = useId();
  const e = props.editing;
  const [d, setD] = useState<ChannelDraft>({
    kind: e?.kind ?? "webhook",
    name: e?.name ?? "",
    url: e?.kind === "webhook" ? String(e.config.url ?? "") : "",
    secret: "",
    to: e?.kind === "email" && Array.isArray(e.config.to) ? e.config.to.join(", ") : "",
  });
  const { fields, formError, saving, submit } = useFormSubmit(explainWithFields(SHOWN));
  const set = <K extends keyof ChannelDraft>(key: K, value: ChannelDraft[K]) =>
    setD((p) => ({ ...p, [key]: value }));
  const keepHint = e?.secretSet ? t("al.ch.keepHint") : undefined;

  return (
    <form
      data-testid="al-channel-form"
      className={`${CARD} min-w-0 space-y-3 p-3`}
      onSubmit={(ev) => {
        ev.preventDefault();
        void submit(() => props.save(d));
      }}
    >
      <div className="grid min-w-0 gap-3 sm:grid-cols-2">
        <TextField
          id={id}
          name="name"
          label={t("al.col.name")}
          value={d.name}
          onChange={(v) => set("name", v)}
          messages={messagesOf(fields, "name")}
        />
        <SelectField
          id={id}
          name="kind"
          label={t("al.col.kind")}
          value={d.kind}
          disabled={!!e}
          onChange={(v) => set("kind", v as ChannelDraft["kind"])}
          messages={messagesOf(fields, "kind")}
        >
          <option value="webhook">{t("al.ch.webhook")}</option>
          <option value="slack">{t("al.ch.slack")}</option>
          <option value="email">{t("al.ch.email")}</option>
        </SelectField>
        {d.kind !== "email" && (
          <TextField
            id={id}
            name="url"
            label={d.kind === "slack" ? t("al.ch.slackUrl") : t("al.ch.url")}
            hint={d.kind === "slack" ? keepHint : undefined}
            value={d.url}
            onChange={(v) => set("url", v)}
            messages={messagesOf(fields, "config.url")}
          />
        )}
        {d.kind === "webhook" && (
          <TextField
            id={id}
            name="secret"
            type="password"
            autoComplete="new-password"
            label={t("al.ch.secret")}
            hint={keepHint ?? t("al.ch.secretHint")}
            value={d.secret}
            onChange={(v) => set("secret", v)}
            messages={messagesOf(fields, "config.secret")}
          />
        )}
        {d.kind === "email" && (
          <TextField
            id={id}
            name="to"
            label={t("al.ch.to")}
            value={d.to}
            onChange={(v) => set("to", v)}
            messages={messagesOf(fields, "config.to")}
          />
        )}
      </div>
      {(formError || messagesOf(fields, "config").length > 0) && (
        <ErrorNote message={[formError, ...messagesOf(fields, "config")].filter(Boolean).join(" ")} />
      )}
      <div className="flex flex-wrap gap-2">
        <button type="submit" data-testid="al-channel-save" disabled={saving} className={PRIMARY}>
          {t("al.save")}
        </button>
        <button type="button" data-testid="al-channel-cancel" onClick={props.onCancel} className={BUTTON}>
          {t("al.cancel")}
        </button>
      </div>
    </form>
  );
}
