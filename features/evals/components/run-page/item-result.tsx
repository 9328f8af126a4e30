"use client";

import Link from "next/link";
import { Pill } from "@/components/admin-kit/ui";
import { useI18n } from "@/components/i18n";
import { Money } from "@/components/ui/money";
import { AskAssistantButton, shortId } from "@/features/drawer/components";
import type { MessageKey } from "@/lib/i18n/messages";
import { markDifferences } from "../../compare";
import type { RunItemView } from "../../contracts";
import { formatLatency, formatScore } from "./format";

/** An item's verdict for one target: pass, fail, error, or its status while it has none. */
function Verdict({ cell }: { cell: RunItemView }) {
  const { t } = useI18n();
  if (cell.status === "failed" || cell.error) return <Pill tone="amber">{t("evals.verdict.error")}</Pill>;
  if (cell.passed === null)
    return <Pill tone="slate">{t(`evals.itemStatus.${cell.status}` as MessageKey)}</Pill>;
  return cell.passed ? (
    <Pill tone="green" testId="verdict-pass">
      {t("evals.verdict.pass")}
    </Pill>
  ) : (
    <span
      data-testid="verdict-fail"
      className="inline-block rounded-full bg-red-100 px-2 py-0.5 text-xs font-medium text-red-800 dark:bg-red-900/50 dark:text-red-200"
    >
      {t("evals.verdict.fail")}
    </span>
  );
}

/** One target's result for one item: verdict, score, latency, cost, replay link, the output, each scorer's reason. */
export function OutputBody({
  runId,
  cell,
  reference,
}: {
  runId: string;
  cell: RunItemView;
  reference: string | null;
}) {
  const { t } = useI18n();
  const words = cell.output === null ? null : markDifferences(cell.output, reference);
  return (
    <>
      <div className="flex flex-wrap items-center gap-2 text-xs">
        <Verdict cell={cell} />
        {cell.score !== null && <span className="tabular-nums">{formatScore(cell.score)}</span>}
        {cell.latencyMs !== null && (
          <span className="text-slate-500 tabular-nums">{formatLatency(cell.latencyMs)}</span>
        )}
        {cell.cost !== null && <Money value={cell.cost} className="text-slate-500" />}
        {cell.turnId && (
          <Link
            href={`/dev/agent/audit/${cell.turnId}`}
            className="text-indigo-600 hover:underline dark:text-indigo-400"
          >
            {t("evals.replay")}
          </Link>
        )}
        <AskAssistantButton
          item={{
            type: "eval_item",
            // The run page's own name for an item's result: run, dataset item, target.
            id: `${runId}:${cell.itemId}:${cell.targetIndex}`,
            label: t("context.label.eval_item", { id: `${shortId(cell.itemId)} #${cell.targetIndex + 1}` }),
          }}
          className="inline-flex items-center gap-1 text-indigo-600 hover:underline focus-visible:outline-2 focus-visible:outline-indigo-500 dark:text-indigo-400"
        />
      </div>
      {cell.error && <p className="mt-1 text-xs break-words text-red-700 dark:text-red-300">{cell.error}</p>}
      {words && (
        <p className="mt-1 line-clamp-6 text-sm break-words whitespace-pre-wrap">
          {words.map((w, i) =>
            w.changed ? (
              <mark
                // biome-ignore lint/suspicious/noArrayIndexKey: pieces of one fixed text
                key={i}
                data-testid="output-diff"
                title={t("evals.differs")}
                className="rounded bg-amber-200/70 text-inherit dark:bg-amber-700/50"
              >
                {w.text}
              </mark>
            ) : (
              // biome-ignore lint/suspicious/noArrayIndexKey: pieces of one fixed text
              <span key={i}>{w.text}</span>
            ),
          )}
        </p>
      )}
      {cell.scores && cell.scores.length > 0 && (
        <ul className="mt-1 space-y-0.5 text-xs text-slate-600 dark:text-slate-400">
          {cell.scores.map((s, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: a cell's scores in the run's scorer order
            <li key={i} data-testid="item-score" data-passed={s.passed}>
              <span
                className={
                  s.passed ? "text-emerald-700 dark:text-emerald-300" : "text-red-700 dark:text-red-300"
                }
              >
                {s.passed ? "✓" : "✗"}
              </span>{" "}
              <span className="font-mono">{s.type}</span> {formatScore(s.score)} — {s.reason}
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
