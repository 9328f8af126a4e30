"use client";

import { useId, useMemo } from "react";
import { LABEL } from "@/components/admin-kit/ui";
import { useI18n } from "@/components/i18n";
import type { PromptVersionView } from "@/features/prompts/contracts";
import { type DiffOp, type DiffRow, diffLines, sideBySide } from "@/lib/core/text/line-diff";
import { versionLines } from "./prompt-content";
import { INPUT_FIXED } from "./styles";

const CELL = {
  same: "",
  removed: "bg-red-50 text-red-900 dark:bg-red-950/50 dark:text-red-100",
  added: "bg-emerald-50 text-emerald-900 dark:bg-emerald-950/50 dark:text-emerald-100",
  empty: "bg-slate-50 dark:bg-slate-800/40",
} as const;

function Side({ line, tone }: { line: DiffRow["left"]; tone: "removed" | "added" | "same" }) {
  if (!line)
    return (
      <>
        <td className={`w-10 ${CELL.empty}`} />
        <td className={CELL.empty} />
      </>
    );
  return (
    <>
      <td className={`w-10 px-2 text-right align-top text-slate-400 select-none ${CELL[tone]}`}>{line.n}</td>
      <td data-diff={tone} className={`px-2 align-top break-words whitespace-pre-wrap ${CELL[tone]}`}>
        {tone !== "same" && (
          <span aria-hidden="true" className="mr-1 select-none">
            {tone === "removed" ? "−" : "+"}
          </span>
        )}
        {line.text || " "}
      </td>
    </>
  );
}

/** On a narrow screen: one column, removed lines then added ones where they differ. */
function Unified({ ops }: { ops: DiffOp[] }) {
  return (
    <pre
      data-testid="diff-unified"
      className="overflow-x-auto rounded-lg border border-slate-200 py-1 font-mono text-xs sm:hidden dark:border-slate-800"
    >
      {ops.map((op, i) => (
        <div
          // biome-ignore lint/suspicious/noArrayIndexKey: lines of one computed diff, in order
          key={i}
          className={`px-2 break-words whitespace-pre-wrap ${CELL[op.kind]}`}
        >
          <span aria-hidden="true" className="mr-1 select-none">
            {op.kind === "removed" ? "−" : op.kind === "added" ? "+" : " "}
          </span>
          {op.text || " "}
        </div>
      ))}
    </pre>
  );
}

/** Two versions side by side (one column on a narrow screen), lines removed on the left in red and added on the right in green. */
export function VersionDiff(props: {
  versions: PromptVersionView[];
  from: number;
  to: number;
  onChange: (from: number, to: number) => void;
}) {
  const { t } = useI18n();
  const id = useId();
  const byNumber = useMemo(() => new Map(props.versions.map((v) => [v.version, v])), [props.versions]);
  const a = byNumber.get(props.from);
  const b = byNumber.get(props.to);
  const ops = useMemo(() => (a && b ? diffLines(versionLines(a), versionLines(b)) : []), [a, b]);
  const rows = useMemo(() => sideBySide(ops), [ops]);
  const changed = rows.filter((r) => r.kind !== "same").length;
  const select = (which: "from" | "to", value: number) =>
    which === "from" ? props.onChange(value, props.to) : props.onChange(props.from, value);
  return (
    <div data-testid="prompt-diff" className="space-y-3">
      <div className="flex flex-wrap items-end gap-3">
        {(["from", "to"] as const).map((which) => (
          <div key={which}>
            <label htmlFor={`${id}-${which}`} className={LABEL}>
              {t(which === "from" ? "prompts.diff.from" : "prompts.diff.to")}
            </label>
            <select
              id={`${id}-${which}`}
              data-testid={`diff-${which}`}
              value={which === "from" ? props.from : props.to}
              onChange={(e) => select(which, Number(e.target.value))}
              className={`mt-1 ${INPUT_FIXED} w-28`}
            >
              {props.versions.map((v) => (
                <option key={v.version} value={v.version}>
                  v{v.version}
                </option>
              ))}
            </select>
          </div>
        ))}
        <p data-testid="diff-summary" className="pb-1.5 text-sm text-slate-600 dark:text-slate-300">
          {changed ? t("prompts.diff.changed", { count: String(changed) }) : t("prompts.diff.same")}
        </p>
      </div>
      <Unified ops={ops} />
      <div className="hidden overflow-x-auto rounded-lg border border-slate-200 sm:block dark:border-slate-800">
        <table className="w-full min-w-[36rem] table-fixed font-mono text-xs">
          <colgroup>
            <col className="w-10" />
            <col />
            <col className="w-10" />
            <col />
          </colgroup>
          <thead className="bg-slate-50 text-left text-slate-600 dark:bg-slate-800/50 dark:text-slate-300">
            <tr>
              <th colSpan={2} className="px-2 py-1.5 font-sans font-medium">
                v{props.from}
              </th>
              <th
                colSpan={2}
                className="border-l border-slate-200 px-2 py-1.5 font-sans font-medium dark:border-slate-800"
              >
                v{props.to}
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: rows of one computed diff, in order
              <tr key={i} data-testid="diff-row" data-kind={row.kind}>
                <Side line={row.left} tone={row.kind === "same" ? "same" : "removed"} />
                <Side line={row.right} tone={row.kind === "same" ? "same" : "added"} />
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}
