"use client";

import { Fragment, type ReactNode } from "react";
import { useCopyText } from "@/components/admin-kit/use-copy-text";
import { useI18n } from "@/components/i18n";
import { decodeJsonText, decodeNested, MASK_MARKER } from "@/lib/core/text/json-text";

/** Objects and arrays deeper than this start folded (a click opens them). */
const OPEN_DEPTH = 3;
/** An array or object with more entries than this starts folded too. */
const OPEN_MAX_ENTRIES = 30;

const MASK =
  "rounded bg-amber-200 px-1 font-sans text-[0.7rem] font-semibold text-amber-900 dark:bg-amber-800 dark:text-amber-100";

/** Text with every `[masked…]` marker lib/core/text/mask.ts wrote shown as a visible "masked" badge. */
export function MaskedText({ text }: { text: string }) {
  const { t } = useI18n();
  const parts: ReactNode[] = [];
  let last = 0;
  for (const m of text.matchAll(MASK_MARKER)) {
    const at = m.index ?? 0;
    if (at > last) parts.push(text.slice(last, at));
    const kind = m[0].slice(8, -1).replace(/^:/, "");
    parts.push(
      <span key={at} data-testid="masked-value" title={t("replay.maskedHint")} className={MASK}>
        {kind ? t("replay.maskedKind", { kind }) : t("replay.masked")}
      </span>,
    );
    last = at + m[0].length;
  }
  if (last < text.length) parts.push(text.slice(last));
  return <>{parts}</>;
}

function Scalar({ value }: { value: unknown }) {
  if (typeof value === "string")
    return (
      <span className="break-words whitespace-pre-wrap text-emerald-700 dark:text-emerald-300">
        &quot;
        <MaskedText text={value} />
        &quot;
      </span>
    );
  if (typeof value === "number")
    return <span className="text-sky-700 dark:text-sky-300">{String(value)}</span>;
  if (typeof value === "boolean")
    return <span className="text-violet-700 dark:text-violet-300">{String(value)}</span>;
  return <span className="text-slate-500">null</span>;
}

function Node({ name, value, depth, last }: { name?: string; value: unknown; depth: number; last: boolean }) {
  const { t } = useI18n();
  const key =
    name !== undefined ? (
      <span className="text-slate-500 dark:text-slate-400">{JSON.stringify(name)}: </span>
    ) : null;
  const comma = last ? "" : ",";
  if (value === null || typeof value !== "object")
    return (
      <div className="pl-4 -indent-4">
        {key}
        <Scalar value={value} />
        {comma}
      </div>
    );
  const array = Array.isArray(value);
  const entries: [string | undefined, unknown][] = array
    ? value.map((v) => [undefined, v])
    : Object.entries(value as Record<string, unknown>);
  const [open, close] = array ? ["[", "]"] : ["{", "}"];
  if (!entries.length)
    return (
      <div>
        {key}
        {open}
        {close}
        {comma}
      </div>
    );
  const summary = array
    ? t("replay.jsonItems", { n: String(entries.length) })
    : t("replay.jsonKeys", { n: String(entries.length) });
  return (
    <details open={depth < OPEN_DEPTH && entries.length <= OPEN_MAX_ENTRIES} className="group">
      <summary className="cursor-pointer list-none marker:hidden [&::-webkit-details-marker]:hidden">
        <span aria-hidden="true" className="inline-block w-3 text-slate-400 group-open:rotate-90">
          ▸
        </span>
        {key}
        {open}
        <span className="text-slate-400 group-open:hidden">
          {" "}
          … {summary} {close}
          {comma}
        </span>
      </summary>
      <div className="border-l border-slate-200 pl-3 ml-1 dark:border-slate-700">
        {entries.map(([k, v], i) => (
          <Fragment key={k ?? i}>
            <Node name={k} value={v} depth={depth + 1} last={i === entries.length - 1} />
          </Fragment>
        ))}
      </div>
      <div>
        {close}
        {comma}
      </div>
    </details>
  );
}

/**
 * A JSON value, pretty and collapsible, with a copy button; masked secrets are marked. Given `text`, it shows the
 * JSON inside the text (decoded however many times it was encoded), or the text itself when it is not JSON.
 */
export function JsonView(props: { value?: unknown; text?: string; className?: string; testId?: string }) {
  const { t } = useI18n();
  const decoded =
    props.text !== undefined
      ? decodeJsonText(props.text)
      : { kind: "json" as const, value: decodeNested(props.value) };
  const copyText =
    decoded.kind === "json" ? (JSON.stringify(decoded.value, null, 2) ?? "null") : decoded.text;
  const { ref, state, copy } = useCopyText<HTMLDivElement>(copyText);
  return (
    <div
      data-testid={props.testId ?? "json-view"}
      data-kind={decoded.kind}
      className={`relative rounded-md bg-slate-50 font-mono text-xs leading-5 ring-1 ring-slate-200 dark:bg-slate-900 dark:ring-slate-700 ${props.className ?? ""}`}
    >
      <button
        type="button"
        data-testid="json-copy"
        onClick={copy}
        className="absolute top-1 right-1 rounded border border-slate-300 bg-white px-1.5 py-0.5 font-sans text-[0.7rem] text-slate-600 hover:bg-slate-100 dark:border-slate-600 dark:bg-slate-800 dark:text-slate-300"
      >
        {state === "copied"
          ? t("replay.copied")
          : state === "failed"
            ? t("replay.copyFailed")
            : t("replay.copy")}
      </button>
      <div ref={ref} className="max-h-96 overflow-auto p-2 pr-14">
        {decoded.kind === "json" ? (
          <Node value={decoded.value} depth={0} last />
        ) : (
          <div className="break-words whitespace-pre-wrap">
            <MaskedText text={decoded.text} />
            {decoded.truncated && (
              <p className="mt-1 font-sans text-slate-500 italic">{t("replay.truncated")}</p>
            )}
          </div>
        )}
      </div>
    </div>
  );
}
