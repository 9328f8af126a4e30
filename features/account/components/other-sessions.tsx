"use client";

import { useState } from "react";
import { DoneNote } from "@/components/admin-kit/form";
import { BUTTON, ErrorNote, Section } from "@/components/admin-kit/ui";
import { useI18n } from "@/components/i18n";
import { toApiError } from "@/lib/client/api";
import { accountApi } from "../client";

/** Signs out every other browser and device of yours; this one stays signed in. */
export function OtherSessions() {
  const { t } = useI18n();
  const [state, setState] = useState<"idle" | "working" | "done">("idle");
  const [error, setError] = useState<string | null>(null);

  const signOutOthers = async () => {
    setState("working");
    setError(null);
    try {
      await accountApi.signOutOtherSessions();
      setState("done");
    } catch (cause) {
      setError(toApiError(cause).message);
      setState("idle");
    }
  };

  return (
    <Section title={t("account.sessions.title")} lead={t("account.sessions.lead")} testId="other-sessions">
      <div className="flex flex-wrap items-center gap-3">
        <button
          type="button"
          data-testid="sign-out-others"
          disabled={state === "working"}
          onClick={signOutOthers}
          className={BUTTON}
        >
          {state === "working" ? t("admin.saving") : t("account.sessions.signOutOthers")}
        </button>
        <DoneNote testId="sign-out-others-done" text={state === "done" ? t("account.sessions.done") : null} />
      </div>
      {error && <ErrorNote message={error} />}
    </Section>
  );
}
