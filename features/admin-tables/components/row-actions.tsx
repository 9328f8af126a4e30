"use client";

import Link from "next/link";
import { type FormEvent, useCallback, useEffect, useId, useRef, useState } from "react";
import { useI18n } from "@/components/i18n";
import type { Row, RowActionDef, RowLinkDef } from "@/features/admin-tables/contracts";
import { sendJson, toApiError } from "@/lib/client/api";
import { fillHref, pick } from "./format";

const BUTTON =
  "rounded-md border px-2 py-0.5 text-xs font-medium whitespace-nowrap disabled:cursor-not-allowed disabled:opacity-50";
const TONE = {
  normal:
    "border-slate-300 text-slate-700 hover:bg-slate-100 dark:border-slate-700 dark:text-slate-200 dark:hover:bg-slate-800",
  danger:
    "border-red-300 text-red-700 hover:bg-red-50 dark:border-red-800 dark:text-red-300 dark:hover:bg-red-950/40",
};

/** Whether the action is offered on this row (its `when`, if any, holds). */
export const offered = (action: RowActionDef, row: Row) =>
  !action.when || row[action.when.field] === action.when.equals;

/** "{field}" placeholders of a message filled from the row, as text (not URL-encoded). */
const fillText = (template: string, row: Row) =>
  template.replace(/\{(\w+)\}/g, (m, field: string) => (row[field] == null ? m : String(row[field])));

export type Asking = { action: RowActionDef; row: Row; rowId: string };

/**
 * Runs a page's row actions: one at a time, asking first (a dialog) when the action has a confirmation or an
 * input; after a success the rows reload, a refusal keeps the server's message to show.
 */
export function useRowActions(onDone: () => void) {
  const [running, setRunning] = useState<string | null>(null);
  const [error, setError] = useState<{ label: string; message: string } | null>(null);
  const [asking, setAsking] = useState<Asking | null>(null);
  const { locale } = useI18n();

  const run = useCallback(
    async (action: RowActionDef, row: Row, rowId: string, value?: string): Promise<boolean> => {
      const href = fillHref(action.href, row);
      if (!href) return false;
      const body =
        action.input && value !== undefined ? { ...action.body, [action.input.field]: value } : action.body;
      setRunning(`${rowId}:${action.key}`);
      setError(null);
      try {
        await sendJson(action.method, href, body);
        onDone();
        return true;
      } catch (cause) {
        setError({ label: pick(action.label, locale), message: toApiError(cause).message });
        return false;
      } finally {
        setRunning(null);
      }
    },
    [onDone, locale],
  );

  const start = useCallback(
    (action: RowActionDef, row: Row, rowId: string) => {
      setError(null);
      if (action.confirm || action.input) setAsking({ action, row, rowId });
      else void run(action, row, rowId);
    },
    [run],
  );

  const closeDialog = useCallback(() => {
    setAsking(null);
    setError(null);
  }, []);

  return { running, error, asking, start, run, closeDialog };
}

export type RowActionsApi = ReturnType<typeof useRowActions>;

/** A row's links to other pages (e.g. a ledger row's replay), in the table and in the row's detail. */
export function RowLinks({ links, row }: { links: RowLinkDef[]; row: Row }) {
  const { locale } = useI18n();
  return (
    <>
      {links.map((link) => {
        const href = fillHref(link.href, row);
        return href ? (
          <Link
            key={link.key}
            href={href}
            data-testid={`row-link-${link.key}`}
            className={`${BUTTON} ${TONE.normal} text-indigo-700 dark:text-indigo-300`}
          >
            {pick(link.label, locale)}
          </Link>
        ) : null;
      })}
    </>
  );
}

/** The action buttons of one row. */
export function RowActionButtons(props: {
  actions: RowActionDef[];
  links?: RowLinkDef[];
  row: Row;
  rowId: string;
  api: RowActionsApi;
}) {
  const { locale } = useI18n();
  const visible = props.actions.filter((a) => offered(a, props.row));
  return (
    <div className="flex items-center justify-end gap-1.5">
      {props.links && <RowLinks links={props.links} row={props.row} />}
      {visible.map((action) => {
        const label = pick(action.label, locale);
        if (action.toggle)
          return (
            <RowToggle
              key={action.key}
              action={action}
              label={label}
              row={props.row}
              rowId={props.rowId}
              api={props.api}
            />
          );
        return (
          <button
            key={action.key}
            type="button"
            data-testid={`row-action-${action.key}`}
            disabled={props.api.running !== null}
            aria-busy={props.api.running === `${props.rowId}:${action.key}` || undefined}
            onClick={() => props.api.start(action, props.row, props.rowId)}
            className={`${BUTTON} ${TONE[action.tone === "danger" ? "danger" : "normal"]}`}
          >
            {label}
          </button>
        );
      })}
    </div>
  );
}

/**
 * A row action shown as a checkbox: checked when the row's field is true, and a change sends the opposite value.
 * Locked rows (e.g. admins, who have the right by role) show it checked and disabled, with the reason as a hint.
 */
function RowToggle(props: {
  action: RowActionDef;
  label: string;
  row: Row;
  rowId: string;
  api: RowActionsApi;
}) {
  const { locale } = useI18n();
  const { action, row } = props;
  const toggle = action.toggle!;
  const locked = toggle.lockedWhen !== undefined && row[toggle.lockedWhen.field] === toggle.lockedWhen.equals;
  const checked = locked || row[toggle.field] === true;
  const busy = props.api.running === `${props.rowId}:${action.key}`;
  return (
    <label
      data-testid={`row-toggle-${action.key}`}
      title={locked && toggle.lockedReason ? pick(toggle.lockedReason, locale) : undefined}
      className={`inline-flex items-center gap-1.5 rounded-md px-1.5 py-0.5 text-xs whitespace-nowrap ${
        locked ? "text-slate-500 dark:text-slate-400" : "cursor-pointer text-slate-700 dark:text-slate-200"
      }`}
    >
      <input
        type="checkbox"
        checked={checked}
        disabled={locked || props.api.running !== null}
        aria-busy={busy || undefined}
        onChange={() =>
          void props.api.run(
            { ...action, body: { ...action.body, [toggle.field]: !checked } },
            row,
            props.rowId,
          )
        }
        className="size-4 accent-indigo-600 disabled:cursor-not-allowed"
      />
      {props.label}
    </label>
  );
}

/** Asks before an action: its confirmation text, its input, and the server's refusal if it comes. */
export function RowActionDialog({ api, asking }: { api: RowActionsApi; asking: Asking }) {
  const { t, locale } = useI18n();
  const id = useId();
  const ref = useRef<HTMLDialogElement>(null);
  const inputRef = useRef<HTMLInputElement>(null);
  const cancelRef = useRef<HTMLButtonElement>(null);
  const { action, row } = asking;
  const [value, setValue] = useState(() =>
    action.input?.initialFrom ? String(row[action.input.initialFrom] ?? "") : "",
  );

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    dialog.showModal();
    // The input when there is one; otherwise Cancel, so Enter never confirms a destructive action by accident.
    (inputRef.current ?? cancelRef.current)?.focus();
    return () => dialog.close();
  }, []);

  const label = pick(action.label, locale);
  const busy = api.running !== null;

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (await api.run(action, row, asking.rowId, action.input ? value : undefined)) api.closeDialog();
  };

  return (
    <dialog
      ref={ref}
      data-testid="row-action-dialog"
      aria-labelledby={`${id}-title`}
      onCancel={(e) => {
        e.preventDefault();
        if (!busy) api.closeDialog();
      }}
      className="m-auto w-[min(28rem,calc(100vw-2rem))] rounded-lg border border-slate-200 bg-white p-0 text-slate-900 shadow-xl backdrop:bg-slate-900/40 dark:border-slate-700 dark:bg-slate-900 dark:text-slate-100"
    >
      <form noValidate onSubmit={submit} className="space-y-4 p-5">
        <h2 id={`${id}-title`} className="font-semibold">
          {label}
        </h2>
        {action.confirm && (
          <p data-testid="row-action-confirm-text" className="text-sm text-slate-600 dark:text-slate-300">
            {fillText(pick(action.confirm, locale), row)}
          </p>
        )}
        {action.input && (
          <div>
            <label
              htmlFor={`${id}-input`}
              className="block text-xs font-medium text-slate-600 dark:text-slate-400"
            >
              {pick(action.input.label, locale)}
            </label>
            <input
              id={`${id}-input`}
              ref={inputRef}
              data-testid="row-action-input"
              value={value}
              autoComplete="off"
              onChange={(e) => setValue(e.target.value)}
              className="mt-1 w-full rounded-md border border-slate-300 bg-white px-2 py-1.5 text-sm dark:border-slate-700 dark:bg-slate-950"
            />
          </div>
        )}
        {api.error && (
          <p
            role="alert"
            data-testid="row-action-error"
            className="rounded-md border border-red-300 bg-red-50 px-3 py-2 text-sm break-words text-red-800 dark:border-red-900 dark:bg-red-950/40 dark:text-red-200"
          >
            {t("schema.actionFailed", { action: api.error.label, message: api.error.message })}
          </p>
        )}
        <div className="flex justify-end gap-2">
          <button
            type="button"
            ref={cancelRef}
            data-testid="row-action-cancel"
            disabled={busy}
            onClick={api.closeDialog}
            className="rounded-md border border-slate-300 px-3 py-1.5 text-sm hover:bg-slate-100 dark:border-slate-700 dark:hover:bg-slate-800"
          >
            {t("schema.cancel")}
          </button>
          <button
            type="submit"
            data-testid="row-action-confirm"
            disabled={busy}
            className={`rounded-md px-3 py-1.5 text-sm font-medium text-white disabled:opacity-50 ${
              action.tone === "danger"
                ? "bg-red-600 hover:bg-red-700"
                : "bg-indigo-600 hover:bg-indigo-700 dark:bg-indigo-500 dark:hover:bg-indigo-400"
            }`}
          >
            {busy ? t("schema.working") : label}
          </button>
        </div>
      </form>
    </dialog>
  );
}

/** A refused action that asked nothing first, said above the table. */
export function RowActionError({ api }: { api: RowActionsApi }) {
  const { t } = useI18n();
  if (!api.error || api.asking) return null;
  return (
    <p
      role="alert"
      data-testid="row-action-error"
      className="rounded-md border border-red-300 bg-red-50 px-3 py-2 text-sm break-words text-red-800 dark:border-red-900 dark:bg-red-950/40 dark:text-red-200"
    >
      {t("schema.actionFailed", { action: api.error.label, message: api.error.message })}
    </p>
  );
}
