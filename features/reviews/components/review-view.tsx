"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { type ReactNode, useCallback, useEffect, useRef, useState } from "react";
import { BUTTON, CARD, ErrorNote, INPUT, LABEL, PRIMARY } from "@/components/admin-kit/ui";
import { useI18n } from "@/components/i18n";
import { type ApiError, toApiError } from "@/lib/client/api";
import { datasetHref, type ReviewDataset, reviewItemHref, reviewsApi } from "../client";
import { REVIEW_ERROR_CODES, type ReviewClaim } from "../contracts";
import {
  activeField,
  answerYesNo,
  type FormValues,
  pickOption,
  type ScoreField,
  type ScoreValue,
  toSubmission,
} from "./review-form-state";
import { keyPressOf, type ReviewKeyAction, reviewKeyAction } from "./review-keys";
import { ScoreForm } from "./score-form";

/** The queue as the review view needs it. */
export type ReviewQueueHead = { id: string; name: string; datasetId: string | null };

const LOST_CODES: readonly string[] = [REVIEW_ERROR_CODES.leaseLost, REVIEW_ERROR_CODES.itemDone];
/** A 409 saying the item is no longer the caller's: its lease ran out and another took it, or it is done. */
const isLeaseLost = (error: ApiError) => error.status === 409 && LOST_CODES.includes(error.reason ?? "");

function useTime() {
  const { locale } = useI18n();
  return (iso: string) =>
    new Intl.DateTimeFormat(locale === "zh" ? "zh-CN" : "en-US", { timeStyle: "short" }).format(
      new Date(iso),
    );
}

/** The header line above the replay and the form: the queue, what is left, and whose the item is until when. */
function ReviewBar(props: { queue: ReviewQueueHead; open: number; children?: ReactNode; backHref: string }) {
  const { t } = useI18n();
  return (
    <header className="flex flex-wrap items-baseline gap-x-4 gap-y-1">
      <Link href={props.backHref} className="text-sm text-indigo-600 hover:underline dark:text-indigo-400">
        ← {t("rv.view.back")}
      </Link>
      <h1 className="min-w-0 text-xl font-bold break-words">
        {t("rv.view.title", { name: props.queue.name })}
      </h1>
      <span data-testid="review-open" className="text-sm text-slate-600 tabular-nums dark:text-slate-300">
        {t("rv.view.openCount", { n: String(props.open) })}
      </span>
      {props.children}
    </header>
  );
}

/** Said when the queue has nothing free for the caller: with the way back. */
export function ReviewEmpty(props: { queue: ReviewQueueHead; open: number; backHref: string }) {
  const { t } = useI18n();
  return (
    <div className="space-y-4">
      <ReviewBar queue={props.queue} open={props.open} backHref={props.backHref} />
      <div data-testid="review-empty" className={`${CARD} space-y-2 p-6 text-center`}>
        <p className="text-lg font-semibold">{t("rv.view.empty")}</p>
        <p className="text-sm text-slate-600 dark:text-slate-300">{t("rv.view.emptyLead")}</p>
        <p className="flex flex-wrap justify-center gap-3 pt-2 text-sm">
          <Link href={props.backHref} className="text-indigo-600 hover:underline dark:text-indigo-400">
            {t("rv.view.back")}
          </Link>
          <Link href="/" className="text-indigo-600 hover:underline dark:text-indigo-400">
            {t("rv.view.home")}
          </Link>
        </p>
      </div>
    </div>
  );
}

/**
 * The queue's entry (/review/{queueId}): claims the caller's next item and goes to it, or says nothing is left.
 * The claim is a POST, so it runs here in the browser, never in a page's render.
 */
export function ReviewStart(props: { queue: ReviewQueueHead; open: number; backHref: string }) {
  const { t } = useI18n();
  const router = useRouter();
  const [state, setState] = useState<{ empty: boolean; open: number } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const started = useRef(false);
  useEffect(() => {
    // Once per mount: React's development double effect must not claim twice.
    if (started.current) return;
    started.current = true;
    reviewsApi.next(props.queue.id).then(
      (next) => {
        if (next.item) router.replace(reviewItemHref(props.queue.id, next.item.id));
        else setState({ empty: true, open: next.open });
      },
      (e: unknown) => setError(toApiError(e).message),
    );
  }, [props.queue.id, router]);
  if (error)
    return (
      <div className="space-y-4">
        <ReviewBar queue={props.queue} open={props.open} backHref={props.backHref} />
        <ErrorNote message={error} testId="review-error" />
      </div>
    );
  if (state?.empty) return <ReviewEmpty queue={props.queue} open={state.open} backHref={props.backHref} />;
  return (
    <div className="space-y-4">
      <ReviewBar queue={props.queue} open={props.open} backHref={props.backHref} />
      <p data-testid="review-loading" role="status" className="text-sm text-slate-500">
        {t("rv.view.loading")}
      </p>
    </div>
  );
}

type Status =
  | { kind: "idle" }
  | { kind: "busy" }
  | { kind: "lost" }
  | { kind: "error"; message: string }
  | { kind: "empty"; open: number };

/**
 * One claimed item worked: the turn's replay (`replay`, rendered by the page) beside the queue's scores, a comment
 * and Submit & next / Skip / Add to dataset, all on the keyboard too (`?` lists the keys). At 360 px the replay
 * stacks above the form.
 */
export function ReviewView(props: {
  queue: ReviewQueueHead;
  item: Pick<ReviewClaim, "id" | "turnId" | "reason"> & { leaseUntil: string | null };
  open: number;
  fields: ScoreField[];
  datasets: ReviewDataset[];
  backHref: string;
  replay: ReactNode;
}) {
  const { t } = useI18n();
  const time = useTime();
  const router = useRouter();
  const { queue, item, fields } = props;
  const [values, setValues] = useState<FormValues>({});
  const [focused, setFocused] = useState<string | null>(null);
  const [comment, setComment] = useState("");
  const [problems, setProblems] = useState<Record<string, string>>({});
  const [status, setStatus] = useState<Status>({ kind: "idle" });
  const [help, setHelp] = useState(false);
  const [datasetId, setDatasetId] = useState(
    queue.datasetId && props.datasets.some((d) => d.id === queue.datasetId)
      ? queue.datasetId
      : (props.datasets[0]?.id ?? ""),
  );
  const [added, setAdded] = useState<{ datasetId: string; name: string } | null>(null);
  const [datasetError, setDatasetError] = useState<string | null>(null);
  const active = activeField(fields, values, focused);
  // A message about a score is about the value it had: a new value clears it.
  const change = useCallback(
    (next: (v: FormValues) => FormValues) =>
      setValues((v) => {
        const after = next(v);
        if (after !== v)
          setProblems((p) => {
            const changed = Object.keys(p).filter((name) => after[name] !== v[name]);
            return changed.length
              ? Object.fromEntries(Object.entries(p).filter(([n]) => !changed.includes(n)))
              : p;
          });
        return after;
      }),
    [],
  );
  const busy = status.kind === "busy";

  const fail = useCallback((error: unknown) => {
    const e = toApiError(error);
    setStatus(isLeaseLost(e) ? { kind: "lost" } : { kind: "error", message: e.message });
    return e;
  }, []);

  /** Claims the next item and goes to it; says so when none is left. */
  const takeNext = useCallback(async () => {
    setStatus({ kind: "busy" });
    try {
      const next = await reviewsApi.next(queue.id);
      if (next.item) router.push(reviewItemHref(queue.id, next.item.id));
      else setStatus({ kind: "empty", open: next.open });
    } catch (error) {
      fail(error);
    }
  }, [queue.id, router, fail]);

  const submit = useCallback(async () => {
    if (busy) return;
    const checked = toSubmission(fields, values);
    if (!checked.ok) {
      const said: Record<string, string> = {};
      for (const [name, why] of Object.entries(checked.problems))
        said[name] = t(why === "missing" ? "rv.view.missing" : `rv.view.${why}`, { name });
      setProblems(said);
      return;
    }
    setProblems({});
    setStatus({ kind: "busy" });
    const note = comment.trim();
    try {
      await reviewsApi.done(queue.id, item.id, {
        scores: checked.scores,
        ...(note && checked.scores.length ? { comment: note } : {}),
      });
    } catch (error) {
      const e = fail(error);
      // A score its config refuses: said under that score (the server names it by its place in `scores`).
      const said: Record<string, string> = {};
      for (const [key, messages] of Object.entries(e.fields)) {
        const at = key.startsWith("scores.") ? Number(key.split(".")[1]) : Number.NaN;
        const name = checked.scores[at]?.name;
        if (name) said[name] = messages.join(" ");
      }
      setProblems(said);
      return;
    }
    await takeNext();
  }, [busy, fields, values, comment, queue.id, item.id, fail, takeNext, t]);

  const skip = useCallback(async () => {
    if (busy) return;
    setStatus({ kind: "busy" });
    try {
      await reviewsApi.skip(queue.id, item.id);
    } catch (error) {
      fail(error);
      return;
    }
    await takeNext();
  }, [busy, queue.id, item.id, fail, takeNext]);

  const addToDataset = useCallback(async () => {
    if (!datasetId) {
      setDatasetError(t("rv.view.datasetNone"));
      return;
    }
    setDatasetError(null);
    try {
      const answer = await reviewsApi.addToDataset(queue.id, item.id, datasetId);
      const name = props.datasets.find((d) => d.id === answer.datasetId)?.name ?? answer.datasetId;
      setAdded({ datasetId: answer.datasetId, name });
    } catch (error) {
      setDatasetError(toApiError(error).message);
    }
  }, [datasetId, queue.id, item.id, props.datasets, t]);

  const act = useCallback(
    (action: ReviewKeyAction) => {
      switch (action.type) {
        case "pick":
          change((v) => pickOption(fields, v, focused, action.n));
          return;
        case "yesNo":
          change((v) => answerYesNo(fields, v, focused, action.yes));
          return;
        case "submit":
          void submit();
          return;
        case "skip":
          void skip();
          return;
        case "dataset":
          void addToDataset();
          return;
        case "help":
          setHelp((h) => !h);
          return;
        case "closeHelp":
          setHelp(false);
      }
    },
    [fields, focused, submit, skip, addToDataset, change],
  );

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (status.kind === "lost" || status.kind === "empty") return;
      const action = reviewKeyAction(keyPressOf(event));
      if (!action) return;
      event.preventDefault();
      act(action);
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [act, status.kind]);

  if (status.kind === "empty")
    return <ReviewEmpty queue={queue} open={status.open} backHref={props.backHref} />;

  return (
    <div
      data-testid="review-view"
      data-item-id={item.id}
      data-turn-id={item.turnId}
      className="min-w-0 space-y-4"
    >
      <ReviewBar queue={queue} open={props.open} backHref={props.backHref}>
        {item.leaseUntil && (
          <span data-testid="review-lease" className="text-sm text-slate-500">
            {t("rv.view.leaseUntil", { time: time(item.leaseUntil) })}
          </span>
        )}
        <button
          type="button"
          data-testid="review-help-toggle"
          onClick={() => setHelp((h) => !h)}
          className="ml-auto text-sm text-slate-500 hover:underline"
        >
          {t("rv.view.keysHint")}
        </button>
      </ReviewBar>
      {help && <ShortcutHelp onClose={() => setHelp(false)} />}
      <div className="grid min-w-0 gap-4 lg:grid-cols-[minmax(0,1fr)_22rem]">
        <div data-testid="review-replay" className="min-w-0">
          {props.replay}
        </div>
        <aside
          data-testid="review-form"
          className={`${CARD} min-w-0 space-y-4 self-start p-4 lg:sticky lg:top-4`}
          aria-label={t("rv.view.scores")}
        >
          <p data-testid="review-reason" className="text-sm text-slate-600 dark:text-slate-300">
            {t("rv.view.reason", { reason: t(`rv.rule.${item.reason}`) })}
          </p>
          {status.kind === "lost" && (
            <div
              role="alert"
              data-testid="review-lease-lost"
              className="space-y-2 rounded-md border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-900 dark:border-amber-800 dark:bg-amber-950/40 dark:text-amber-100"
            >
              <p>{t("rv.view.leaseLost")}</p>
              <button
                type="button"
                data-testid="review-take-next"
                className={PRIMARY}
                onClick={() => void takeNext()}
              >
                {t("rv.view.takeNext")}
              </button>
            </div>
          )}
          {status.kind === "error" && <ErrorNote message={status.message} testId="review-error" />}
          {fields.length ? (
            <ScoreForm
              fields={fields}
              values={values}
              active={active}
              problems={problems}
              disabled={busy || status.kind === "lost"}
              onFocusField={setFocused}
              onChange={(name, value: ScoreValue | undefined) => change((v) => ({ ...v, [name]: value }))}
            />
          ) : (
            <p className="text-sm text-slate-500">{t("rv.view.noScores")}</p>
          )}
          {fields.length > 0 && (
            <div>
              <label htmlFor="review-comment" className={LABEL}>
                {t("rv.view.comment")}
              </label>
              <textarea
                id="review-comment"
                data-testid="review-comment"
                rows={3}
                value={comment}
                maxLength={2_000}
                disabled={busy || status.kind === "lost"}
                onChange={(e) => setComment(e.target.value)}
                aria-describedby="review-comment-hint"
                className={`mt-1 ${INPUT}`}
              />
              <p id="review-comment-hint" className="mt-1 text-xs text-slate-500">
                {t("rv.view.commentHint")}
              </p>
            </div>
          )}
          <div className="flex flex-wrap gap-2">
            <button
              type="button"
              data-testid="review-submit"
              className={PRIMARY}
              disabled={busy || status.kind === "lost"}
              onClick={() => void submit()}
            >
              {t("rv.view.submit")} <kbd className="ml-1 font-mono text-xs opacity-80">↵</kbd>
            </button>
            <button
              type="button"
              data-testid="review-skip"
              className={BUTTON}
              disabled={busy || status.kind === "lost"}
              onClick={() => void skip()}
            >
              {t("rv.view.skip")} <kbd className="ml-1 font-mono text-xs opacity-70">S</kbd>
            </button>
          </div>
          <div className="space-y-2 border-t border-slate-200 pt-3 dark:border-slate-800">
            {props.datasets.length > 0 ? (
              <div className="flex flex-wrap items-end gap-2">
                <div className="min-w-0 flex-1">
                  <label htmlFor="review-dataset" className={LABEL}>
                    {t("rv.view.datasetPick")}
                  </label>
                  <select
                    id="review-dataset"
                    data-testid="review-dataset-pick"
                    value={datasetId}
                    onChange={(e) => setDatasetId(e.target.value)}
                    className={`mt-1 ${INPUT}`}
                  >
                    {props.datasets.map((d) => (
                      <option key={d.id} value={d.id}>
                        {d.name}
                      </option>
                    ))}
                  </select>
                </div>
                <button
                  type="button"
                  data-testid="review-dataset"
                  className={BUTTON}
                  onClick={() => void addToDataset()}
                >
                  {t("rv.view.dataset")} <kbd className="ml-1 font-mono text-xs opacity-70">D</kbd>
                </button>
              </div>
            ) : (
              <p className="text-sm text-slate-500">{t("rv.view.datasetNone")}</p>
            )}
            {added && (
              <p
                role="status"
                data-testid="review-dataset-added"
                className="text-sm text-emerald-700 dark:text-emerald-300"
              >
                ✓{" "}
                <Link href={datasetHref(added.datasetId)} className="hover:underline">
                  {t("rv.view.datasetAdded", { name: added.name })}
                </Link>
              </p>
            )}
            {datasetError && <ErrorNote message={datasetError} testId="review-dataset-error" />}
          </div>
        </aside>
      </div>
    </div>
  );
}

const SHORTCUTS: [string, Parameters<ReturnType<typeof useI18n>["t"]>[0]][] = [
  ["1 – 9", "rv.key.digits"],
  ["Y / N", "rv.key.yesNo"],
  ["Enter", "rv.key.enter"],
  ["Ctrl / ⌘ + Enter", "rv.key.ctrlEnter"],
  ["S", "rv.key.skip"],
  ["D", "rv.key.dataset"],
  ["?", "rv.key.help"],
];

function ShortcutHelp({ onClose }: { onClose: () => void }) {
  const { t } = useI18n();
  return (
    <section
      data-testid="review-shortcuts"
      aria-label={t("rv.view.keys")}
      className={`${CARD} space-y-2 p-4`}
    >
      <div className="flex items-baseline justify-between gap-2">
        <h2 className="font-semibold">{t("rv.view.keys")}</h2>
        <button type="button" onClick={onClose} className="text-sm text-slate-500 hover:underline">
          {t("rv.view.close")}
        </button>
      </div>
      <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm">
        {SHORTCUTS.map(([keys, label]) => (
          <div key={keys} className="contents">
            <dt>
              <kbd className="rounded border border-slate-300 px-1.5 font-mono text-xs dark:border-slate-700">
                {keys}
              </kbd>
            </dt>
            <dd className="text-slate-600 dark:text-slate-300">{t(label)}</dd>
          </div>
        ))}
      </dl>
    </section>
  );
}
