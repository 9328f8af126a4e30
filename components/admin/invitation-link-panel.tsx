"use client";

import { useRef, useState } from "react";
import { BUTTON, DateText, PRIMARY } from "@/components/governance/ui";
import { useI18n } from "@/components/i18n";

/** A new invitation's link, shown this once (the server keeps only its hash), to copy and pass on. */
export function InvitationLinkPanel(props: {
  email: string;
  link: string;
  expiresAt: string;
  onDone: () => void;
}) {
  const { t } = useI18n();
  const codeRef = useRef<HTMLElement>(null);
  const [copy, setCopy] = useState<"idle" | "copied" | "failed">("idle");

  const copyLink = async () => {
    try {
      await navigator.clipboard.writeText(props.link);
      setCopy("copied");
    } catch {
      // No clipboard (an insecure origin, a refused permission): select it so Ctrl+C works.
      const range = document.createRange();
      if (codeRef.current) range.selectNodeContents(codeRef.current);
      window.getSelection()?.removeAllRanges();
      window.getSelection()?.addRange(range);
      setCopy("failed");
    }
  };

  return (
    <section
      data-testid="invite-link-panel"
      aria-labelledby="invite-link-title"
      className="min-w-0 space-y-3 rounded-lg border border-amber-300 bg-amber-50 p-4 dark:border-amber-700/60 dark:bg-amber-950/30"
    >
      <h3 id="invite-link-title" className="font-semibold text-amber-900 dark:text-amber-100">
        {t("admin.invite.linkTitle", { email: props.email })}
      </h3>
      <p className="text-sm text-amber-900 dark:text-amber-200">
        {t("admin.invite.linkOnce")}{" "}
        <span data-testid="invite-valid-until">
          {t("admin.invite.validUntil")} <DateText value={props.expiresAt} fallback="—" />
        </span>
      </p>
      <div className="flex flex-col gap-2 sm:flex-row sm:items-center">
        <code
          ref={codeRef}
          data-testid="invite-link"
          className="min-w-0 flex-1 rounded-md border border-amber-200 bg-white px-3 py-2 font-mono text-sm break-all select-all dark:border-amber-800 dark:bg-slate-900"
        >
          {props.link}
        </code>
        <div className="flex gap-2">
          <button type="button" data-testid="invite-link-copy" onClick={copyLink} className={PRIMARY}>
            {copy === "copied" ? `✓ ${t("admin.invite.copied")}` : t("admin.invite.copy")}
          </button>
          <button type="button" data-testid="invite-link-done" onClick={props.onDone} className={BUTTON}>
            {t("admin.invite.done")}
          </button>
        </div>
      </div>
      <p role="status" className="text-xs text-amber-900 dark:text-amber-200">
        {copy === "failed" ? t("admin.invite.copyFailed") : ""}
      </p>
    </section>
  );
}
