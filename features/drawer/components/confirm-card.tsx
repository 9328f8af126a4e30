"use client";

import { useEffect, useId, useState } from "react";
import { useI18n } from "@/components/i18n";
import { toApiError } from "@/lib/client/api";
import type { MessageKey } from "@/lib/i18n/messages";
import { agentApi } from "./api";
import { secondsLeft } from "./confirm-view";
import type { ConfirmationState } from "./types";

const DECIDED: Record<Extract<ConfirmationState, { state: "decided" }>["decision"], MessageKey> = {
  approve: "agent.confirm.approved",
  deny: "agent.confirm.denied",
  timeout: "agent.confirm.timeout",
  cancelled: "agent.confirm.cancelled",
};

const DECIDED_TONE: Record<keyof typeof DECIDED, string> = {
  approve: "text-emerald-700 dark:text-emerald-300",
  deny: "text-red-700 dark:text-red-300",
  timeout: "text-amber-800 dark:text-amber-200",
  cancelled: "text-slate-600 dark:text-slate-300",
};

/**
 * The user's Approve / Deny on a call that waits for it: the tool, its arguments (collapsible), the time left;
 * then what was decided. The answer goes to the server, whose `confirmation` event settles the card.
 */
export function ConfirmCard(props: {
  turnId: string | null;
  callId: string;
  name: string;
  args: Record<string, unknown>;
  confirmation: ConfirmationState;
}) {
  const { t } = useI18n();
  const { confirmation } = props;
  const headingId = useId();
  const [sending, setSending] = useState<"approve" | "deny" | null>(null);
  const [sent, setSent] = useState<"approve" | "deny" | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const pending = confirmation.state === "pending";
  const left = useSecondsLeft(pending ? confirmation.deadline : null);

  const answer = async (approve: boolean) => {
    if (!props.turnId || sending) return;
    setSending(approve ? "approve" : "deny");
    setFailure(null);
    try {
      await agentApi.confirm(props.turnId, props.callId, approve);
      setSent(approve ? "approve" : "deny");
    } catch (error) {
      setFailure(toApiError(error).message);
    } finally {
      setSending(null);
    }
  };

  if (confirmation.state === "decided")
    return (
      <p
        data-testid="agent-confirm-decision"
        data-decision={confirmation.decision}
        className={`mt-2 text-xs font-medium ${DECIDED_TONE[confirmation.decision]}`}
      >
        {t(DECIDED[confirmation.decision])}
      </p>
    );

  const expired = left === 0;
  const waiting = sent !== null || sending !== null;
  const hasArgs = Object.keys(props.args).length > 0;
  return (
    <section
      data-testid="agent-confirm"
      aria-labelledby={headingId}
      className="mt-2 rounded-md border border-amber-300 bg-amber-50 p-2 text-slate-800 dark:border-amber-800 dark:bg-amber-950/40 dark:text-slate-100"
    >
      <div className="flex flex-wrap items-baseline justify-between gap-x-3 gap-y-1">
        <h3 id={headingId} className="text-sm font-semibold">
          {t("agent.confirm.title")}
        </h3>
        <span
          data-testid="agent-confirm-countdown"
          className="text-xs tabular-nums text-amber-900 dark:text-amber-200"
          // Read once, not every second: the buttons say what to do.
          aria-hidden="true"
        >
          {expired ? t("agent.confirm.expired") : t("agent.confirm.remaining", { s: String(left) })}
        </span>
      </div>
      {/* Announced once when the question appears. */}
      <p role="status" className="mt-1 text-xs">
        {t("agent.confirm.lead", {
          name: props.name,
          s: String(Math.round(confirmation.timeoutMs / 1000)),
        })}
      </p>
      {confirmation.sendsTo && (
        <p
          data-testid="agent-confirm-reason"
          className="mt-1 text-xs font-medium text-amber-900 dark:text-amber-200"
        >
          {t("agent.confirm.outsideData", { to: confirmation.sendsTo })}
        </p>
      )}
      <details className="mt-1" open={hasArgs && Object.keys(props.args).length <= 4}>
        <summary className="cursor-pointer text-xs text-indigo-700 dark:text-indigo-300">
          {t("agent.confirm.args")}
        </summary>
        <pre
          data-testid="agent-confirm-args"
          className="mt-1 max-h-48 overflow-auto rounded bg-white p-2 font-mono text-xs whitespace-pre-wrap break-all dark:bg-slate-950"
        >
          {hasArgs ? JSON.stringify(props.args, null, 2) : t("agent.confirm.noArgs")}
        </pre>
      </details>
      <div className="mt-2 flex flex-wrap items-center gap-2">
        <button
          type="button"
          data-testid="agent-confirm-approve"
          aria-label={t("agent.confirm.approveOf", { name: props.name })}
          disabled={waiting || expired || !props.turnId}
          onClick={() => void answer(true)}
          className="rounded-md bg-emerald-600 px-3 py-1 text-sm font-medium text-white hover:bg-emerald-700 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-emerald-600 disabled:cursor-not-allowed disabled:opacity-50"
        >
          {t("agent.confirm.approve")}
        </button>
        <button
          type="button"
          data-testid="agent-confirm-deny"
          aria-label={t("agent.confirm.denyOf", { name: props.name })}
          disabled={waiting || expired || !props.turnId}
          onClick={() => void answer(false)}
          className="rounded-md border border-slate-300 bg-white px-3 py-1 text-sm font-medium text-red-700 hover:bg-red-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-red-600 disabled:cursor-not-allowed disabled:opacity-50 dark:border-slate-600 dark:bg-slate-900 dark:text-red-300 dark:hover:bg-red-950/40"
        >
          {t("agent.confirm.deny")}
        </button>
        {waiting && (
          <span role="status" className="text-xs text-slate-600 dark:text-slate-300">
            {t("agent.confirm.sending")}
          </span>
        )}
      </div>
      {failure && (
        <p
          role="alert"
          data-testid="agent-confirm-error"
          className="mt-1 text-xs text-red-700 dark:text-red-300"
        >
          {t("agent.confirm.failed", { message: failure })}
        </p>
      )}
    </section>
  );
}

/** Whole seconds until `deadline`, ticking; null when there is none. */
function useSecondsLeft(deadline: number | null): number | null {
  const [left, setLeft] = useState(() => (deadline === null ? null : secondsLeft(deadline, Date.now())));
  useEffect(() => {
    if (deadline === null) return;
    const tick = () => setLeft(secondsLeft(deadline, Date.now()));
    tick();
    const timer = setInterval(tick, 250);
    return () => clearInterval(timer);
  }, [deadline]);
  return left;
}
