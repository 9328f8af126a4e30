"use client";

import { useI18n } from "@/components/i18n";
import { footerText } from "./format";
import type { ChatTurn } from "./types";

/** Who answered and what it cost; before the ledger row is known, at least that the turn was stopped. */
export function AnswerFooter({ turn }: { turn: ChatTurn }) {
  const { t } = useI18n();
  const { footer } = turn;
  if (!footer && !turn.localStatus) return null;
  const title = footer
    ? t("agent.footer.detail", {
        in: String(footer.inputTokens),
        cached: String(footer.cachedInputTokens),
        out: String(footer.outputTokens),
        cost: footer.cost ?? "—",
      })
    : undefined;
  return (
    <p
      data-testid="agent-answer-footer"
      data-status={footer?.status ?? turn.localStatus}
      title={title}
      className="px-1 text-[0.7rem] text-slate-500 tabular-nums dark:text-slate-400"
    >
      {footer ? footerText(footer, t) : t("agent.status.stopped")}
    </p>
  );
}
