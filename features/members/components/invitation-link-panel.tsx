"use client";

import { CopyOncePanel } from "@/components/admin-kit/copy-once-panel";
import { DateText } from "@/components/admin-kit/ui";
import { useI18n } from "@/components/i18n";

/** A new invitation's link, shown this once (the server keeps only its hash), to copy and pass on. */
export function InvitationLinkPanel(props: {
  email: string;
  link: string;
  expiresAt: string;
  onDone: () => void;
}) {
  const { t } = useI18n();
  return (
    <CopyOncePanel
      testId="invite-link"
      heading="h3"
      title={t("admin.invite.linkTitle", { email: props.email })}
      lead={
        <>
          {t("admin.invite.linkOnce")}{" "}
          <span data-testid="invite-valid-until">
            {t("admin.invite.validUntil")} <DateText value={props.expiresAt} fallback="—" />
          </span>
        </>
      }
      value={props.link}
      labels={{
        copy: t("admin.invite.copy"),
        copied: t("admin.invite.copied"),
        copyFailed: t("admin.invite.copyFailed"),
        done: t("admin.invite.done"),
      }}
      onDone={props.onDone}
    />
  );
}
