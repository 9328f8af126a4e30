"use client";

import { type FormEvent, useId, useState } from "react";
import { SelectField, TextField } from "@/components/admin-kit/form";
import { ErrorNote, PRIMARY, Section } from "@/components/admin-kit/ui";
import { explainWithFields, useFormSubmit } from "@/components/admin-kit/use-form-submit";
import { useI18n } from "@/components/i18n";
import type { Json } from "@/lib/client/api";
import { membersApi } from "../client";
import type { CreatedInvitation, Role } from "../contracts";
import { InvitationLinkPanel } from "./invitation-link-panel";

const DEFAULT_DAYS = "7";
const SHOWN = ["email", "role", "expiresInDays"];

/** Invites someone by email with a role; the link comes back once and is shown until dismissed. */
export function InviteForm({ onInvited }: { onInvited: () => void }) {
  const { t } = useI18n();
  const id = useId();
  const [email, setEmail] = useState("");
  const [role, setRole] = useState<Role>("member");
  const [days, setDays] = useState(DEFAULT_DAYS);
  const [sent, setSent] = useState<Json<CreatedInvitation> | null>(null);
  const { fields, formError, saving, reset, submit } = useFormSubmit(explainWithFields(SHOWN));

  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    reset();
    await submit(async () => {
      const result = await membersApi.invite({ email, role, expiresInDays: Number(days) });
      setSent(result);
      setEmail("");
      onInvited();
    });
  };

  return (
    <Section title={t("admin.invite.title")} lead={t("admin.invite.lead")} testId="invite">
      <form noValidate onSubmit={onSubmit} data-testid="invite-form" className="space-y-3">
        <div className="grid gap-3 sm:grid-cols-[minmax(0,2fr)_minmax(0,1fr)_minmax(0,1fr)_auto] sm:items-start">
          <TextField
            id={id}
            name="email"
            type="email"
            label={t("admin.invite.email")}
            value={email}
            onChange={setEmail}
            messages={fields.email}
            placeholder="colleague@example.com"
          />
          <SelectField
            id={id}
            name="role"
            label={t("admin.invite.role")}
            value={role}
            messages={fields.role}
            onChange={(value) => setRole(value as Role)}
          >
            <option value="member">{t("admin.role.member")}</option>
            <option value="admin">{t("admin.role.admin")}</option>
          </SelectField>
          <TextField
            id={id}
            name="expiresInDays"
            type="number"
            min={1}
            max={30}
            label={t("admin.invite.days")}
            value={days}
            onChange={setDays}
            messages={fields.expiresInDays}
          />
          <button
            type="submit"
            data-testid="invite-submit"
            disabled={saving}
            className={`${PRIMARY} sm:mt-5`}
          >
            {saving ? t("admin.invite.sending") : t("admin.invite.submit")}
          </button>
        </div>
        {formError && <ErrorNote message={formError} testId="invite-error" />}
      </form>
      {sent && (
        <InvitationLinkPanel
          key={sent.link}
          email={sent.invitation.email}
          link={sent.link}
          expiresAt={sent.invitation.expiresAt}
          onDone={() => setSent(null)}
        />
      )}
    </Section>
  );
}
