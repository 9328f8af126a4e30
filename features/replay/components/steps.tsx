"use client";

import { createContext, type ReactNode, useContext } from "react";
import { useI18n } from "@/components/i18n";
import { JsonView, MaskedText } from "@/components/ui/json-view";
import { MarkdownText } from "@/components/ui/markdown";
import { Money } from "@/components/ui/money";
import { Badge, formatDuration, formatTokens } from "@/features/admin-tables/components";
import type {
  AddedMessageView,
  AnswerStep,
  ModelStep,
  NoteStep,
  RequestStep,
  Step,
  ToolStep,
} from "@/features/replay/replay-view";
import { formatBytes } from "@/lib/core/format/number";
import { hasMaskMarker } from "@/lib/core/text/json-text";

const CARD =
  "scroll-mt-20 rounded-lg border bg-white p-3 transition-shadow dark:bg-slate-900 target:ring-2 target:ring-amber-400";
const BORDER = "border-slate-200 dark:border-slate-800";
const HIGHLIGHT = "ring-2 ring-amber-400 bg-amber-50/60 dark:bg-amber-950/30";

/**
 * What a step's anchor id starts with: `event-` on a turn's replay; a run's replay gives each call its own
 * (`call-<n>-event-`), so the calls' events, numbered from 1 each, do not share ids.
 */
export const AnchorPrefix = createContext("event-");

/** A step's permalink: `#event-<seq>` (the page scrolls to it and marks it). */
function Anchor({ seq }: { seq: number }) {
  const { t } = useI18n();
  const prefix = useContext(AnchorPrefix);
  return (
    <a
      href={`#${prefix}${seq}`}
      data-testid="event-permalink"
      title={t("replay.permalinkEvent")}
      className="font-mono text-xs text-slate-400 hover:text-indigo-600 hover:underline dark:hover:text-indigo-400"
    >
      #{seq}
    </a>
  );
}

function Head(props: { title: ReactNode; seq: number | null; children?: ReactNode }) {
  return (
    <div className="flex flex-wrap items-center gap-x-2 gap-y-1">
      <h3 className="text-sm font-semibold">{props.title}</h3>
      {props.children}
      <span className="ml-auto">{props.seq !== null && <Anchor seq={props.seq} />}</span>
    </div>
  );
}

function Facts({ items }: { items: [string, ReactNode][] }) {
  return (
    <dl className="mt-2 grid grid-cols-[auto_minmax(0,1fr)] gap-x-3 gap-y-1 text-xs sm:grid-cols-[auto_minmax(0,1fr)_auto_minmax(0,1fr)]">
      {items.map(([label, value]) => (
        <div key={label} className="contents">
          <dt className="text-slate-500 dark:text-slate-400">{label}</dt>
          <dd className="min-w-0 break-words">{value}</dd>
        </div>
      ))}
    </dl>
  );
}

const ms = (v: number | null) => (v === null ? "—" : formatDuration(v));
const at = (v: number | null) => (v === null ? "—" : `+${formatDuration(v)}`);

function RequestCard({ step }: { step: RequestStep }) {
  const { t } = useI18n();
  return (
    <>
      <Head title={t("replay.request")} seq={step.seq}>
        <Badge value={step.source} />
      </Head>
      <p
        data-testid="replay-message"
        className="mt-2 rounded-md bg-slate-50 p-2 text-sm break-words whitespace-pre-wrap dark:bg-slate-800"
      >
        <MaskedText text={step.message} />
      </p>
      <Facts
        items={[
          [
            t("replay.requestedModel"),
            <span key="m" className="font-mono">
              {step.model}
            </span>,
          ],
          [t("replay.toolsOffered"), step.toolsOffered.length ? step.toolsOffered.join(", ") : "—"],
        ]}
      />
    </>
  );
}

function ModelCard({ step }: { step: ModelStep }) {
  const prefix = useContext(AnchorPrefix);
  const { t, locale } = useI18n();
  const title = step.lastCall
    ? t("replay.modelCallLast", { round: String(step.round) })
    : t("replay.modelCall", { round: String(step.round) });
  const served = step.servedModel
    ? `${step.servedProvider ? `${step.servedProvider}/` : ""}${step.servedModel}`
    : "—";
  const items: [string, ReactNode][] = [
    [
      t("replay.served"),
      <span key="s" className="font-mono">
        {served}
      </span>,
    ],
    [
      t("replay.fallback"),
      step.fallbackIndex === null
        ? "—"
        : step.fallbackIndex === 0
          ? t("replay.noFallback")
          : t("replay.fallbackIndex", { n: String(step.fallbackIndex) }),
    ],
    [t("replay.attempts"), step.attemptCount === null ? "—" : String(step.attemptCount)],
    [t("replay.startedAt"), at(step.startMs)],
    [
      t("replay.duration"),
      <span key="d" data-testid="model-duration">
        {ms(step.durationMs)}
      </span>,
    ],
    [t("replay.firstToken"), ms(step.firstTokenMs)],
  ];
  if (step.usage)
    items.push(
      [
        t("replay.tokens"),
        t("replay.tokensInOut", {
          in: formatTokens(
            step.usage.inputTokens + step.usage.cachedInputTokens + step.usage.cacheWriteTokens,
            locale,
          ),
          out: formatTokens(step.usage.outputTokens, locale),
        }),
      ],
      [
        t("replay.cost"),
        step.cacheHit ? (
          t("replay.cacheHit")
        ) : (
          <Money key="c" value={step.cost} empty={t("replay.unpriced")} />
        ),
      ],
    );
  return (
    <>
      <Head title={title} seq={step.seq}>
        {step.outcome && step.outcome !== "ok" && (
          <Badge value={step.outcome === "stopped" ? "stopped" : "error"} />
        )}
        {step.fallbackIndex !== null && step.fallbackIndex > 0 && <Badge value="fallback" />}
        {step.source !== "recorded" && (
          <span className="text-xs text-slate-500 italic">
            {step.source === "ledger" ? t("replay.fromLedger") : t("replay.inferred")}
          </span>
        )}
      </Head>
      <Facts items={items} />
      {step.attempts.length > 1 && (
        <ol className="mt-2 space-y-0.5 text-xs" data-testid="model-attempts">
          {step.attempts.map((a, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: the attempts of a call, in the fixed order they ran
            <li key={`${a.provider}-${i}`} className="flex flex-wrap gap-2">
              <span className="font-mono">
                {i + 1}. {a.provider}/{a.model}
              </span>
              <Badge value={a.outcome === "ok" ? "ok" : a.outcome === "skipped" ? "skipped" : "error"} />
              {a.errorClass && <span className="text-slate-500">{a.errorClass}</span>}
              {typeof a.durationMs === "number" && (
                <span className="tabular-nums text-slate-500">{ms(a.durationMs)}</span>
              )}
            </li>
          ))}
        </ol>
      )}
      {step.text && (
        <p className="mt-2 text-sm break-words whitespace-pre-wrap text-slate-700 dark:text-slate-200">
          <MaskedText text={step.text} />
        </p>
      )}
      {step.error && (
        <p className="mt-2 rounded-md bg-red-50 p-2 text-xs text-red-800 dark:bg-red-950/40 dark:text-red-200">
          <span className="font-mono">{step.error.class}</span>: <MaskedText text={step.error.message} />
        </p>
      )}
      {step.toolCalls.length > 0 && (
        <p className="mt-2 flex flex-wrap items-center gap-1.5 text-xs text-slate-500">
          {t("replay.calledTools")}
          {step.toolCalls.map((c) => (
            <a
              key={c.seq}
              href={`#${prefix}${c.seq}`}
              className="rounded bg-emerald-50 px-1.5 py-0.5 font-mono text-emerald-800 hover:underline dark:bg-emerald-950/50 dark:text-emerald-200"
            >
              {c.name}
            </a>
          ))}
        </p>
      )}
    </>
  );
}

function ToolCard({ step, highlighted }: { step: ToolStep; highlighted: number | null }) {
  const prefix = useContext(AnchorPrefix);
  const { t } = useI18n();
  return (
    <>
      <Head title={<span className="font-mono">{step.name}</span>} seq={step.callSeq ?? step.resultSeq}>
        <span className="text-xs text-slate-500">
          {t("replay.toolInRound", { round: String(step.round) })}
        </span>
        {step.ok !== null && <Badge value={step.ok ? "ok" : "failed"} />}
        {step.parallel && (
          <span className="rounded bg-sky-100 px-1.5 py-0.5 text-xs text-sky-800 dark:bg-sky-900/50 dark:text-sky-200">
            {t("replay.parallel")}
          </span>
        )}
        {step.durationMs !== null && (
          <span
            data-testid="tool-duration"
            className="text-xs tabular-nums text-slate-600 dark:text-slate-300"
          >
            {ms(step.durationMs)}
          </span>
        )}
        {step.startMs !== null && (
          <span className="text-xs tabular-nums text-slate-500">{at(step.startMs)}</span>
        )}
      </Head>
      <div className="mt-2 grid gap-2 lg:grid-cols-2">
        <div className="min-w-0">
          <p className="mb-1 text-xs font-medium text-slate-500">{t("replay.arguments")}</p>
          <JsonView value={step.args} testId="tool-args" />
        </div>
        <div
          className={`min-w-0 scroll-mt-20 rounded-md ${step.resultSeq !== null && highlighted === step.resultSeq ? HIGHLIGHT : ""}`}
          id={step.resultSeq !== null && step.callSeq !== null ? `${prefix}${step.resultSeq}` : undefined}
          data-testid="tool-result-part"
          data-highlighted={step.resultSeq !== null && highlighted === step.resultSeq ? "true" : undefined}
        >
          <p className="mb-1 flex items-center gap-2 text-xs font-medium text-slate-500">
            {t("replay.result")}
            {step.resultSeq !== null && step.callSeq !== null && <Anchor seq={step.resultSeq} />}
          </p>
          {step.result ? (
            step.result.kind === "json" ? (
              <JsonView value={step.result.value} testId="tool-result" />
            ) : (
              <JsonView text={step.result.text} testId="tool-result" />
            )
          ) : (
            <p className="text-xs text-slate-500 italic">
              {step.passthrough ? t("replay.passthrough") : t("replay.noResult")}
            </p>
          )}
          {step.message && <AddedMessage message={step.message} />}
        </div>
      </div>
    </>
  );
}

/** The message a tool call added for the model (an image it loaded), as the audit kept it: never image bytes. */
function AddedMessage({ message }: { message: AddedMessageView }) {
  const { t } = useI18n();
  return (
    <div data-testid="tool-added-message" className="mt-2">
      <p className="mb-1 text-xs font-medium text-slate-500">{t("replay.addedMessage")}</p>
      {message.text && <JsonView text={message.text} testId="tool-added-message-text" />}
      {message.images.length > 0 && (
        <ul className="mt-1 space-y-0.5 text-xs text-slate-600 dark:text-slate-300">
          {message.images.map((image) => (
            <li
              key={`${image.name ?? image.type}-${image.size}`}
              className="break-all"
              data-testid="tool-added-image"
            >
              {image.type}
              {image.size !== null && ` · ${formatBytes(image.size)}`}
              {image.name && ` · ${image.name}`}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

const NOTE_TONE: Record<NoteStep["kind"], string> = {
  guardrail: "border-violet-300 dark:border-violet-800",
  fallback: "border-amber-300 dark:border-amber-800",
  error: "border-red-300 dark:border-red-800",
  stop: "border-amber-300 dark:border-amber-800",
  confirmation: "border-sky-300 dark:border-sky-800",
  other: BORDER,
};

function NoteCard({ step }: { step: NoteStep }) {
  const { t } = useI18n();
  const { message, ...rest } = step.payload;
  const extra = Object.fromEntries(
    Object.entries(rest).filter(
      ([k]) => !["sample", "atMs", "class", "code", "reason", "decision"].includes(k),
    ),
  );
  const label = String(
    step.payload.class ?? step.payload.code ?? step.payload.reason ?? step.payload.decision ?? "",
  );
  return (
    <>
      <Head title={t(`replay.note.${step.kind}`)} seq={step.seq}>
        <Badge value={step.type} />
        {label && <span className="font-mono text-xs">{label}</span>}
        {step.atMs !== null && <span className="text-xs tabular-nums text-slate-500">{at(step.atMs)}</span>}
      </Head>
      {typeof message === "string" && (
        <p className="mt-1 text-sm break-words">
          <MaskedText text={message} />
        </p>
      )}
      {Object.keys(extra).length > 0 && <JsonView value={extra} className="mt-2" />}
    </>
  );
}

function AnswerCard({ step }: { step: AnswerStep }) {
  const { t } = useI18n();
  return (
    <>
      <Head title={t("replay.answer")} seq={step.seq}>
        {step.status !== "success" && <Badge value={step.status} />}
        {hasMaskMarker(step.text) && (
          <span className="rounded bg-amber-200 px-1 text-xs font-semibold text-amber-900">
            {t("replay.masked")}
          </span>
        )}
      </Head>
      <div data-testid="replay-answer" className="prose-sm mt-2 max-w-none text-sm break-words">
        <MarkdownText text={step.text} />
      </div>
    </>
  );
}

const seqOf = (step: Step): number | null =>
  step.kind === "model" ? step.seq : step.kind === "tool" ? (step.callSeq ?? step.resultSeq) : step.seq;

/** The turn's steps in the order they happened; each recorded event has its `#event-<seq>` anchor. */
export function Steps({ steps, highlighted }: { steps: Step[]; highlighted: number | null }) {
  const prefix = useContext(AnchorPrefix);
  return (
    <ol data-testid="replay-steps" className="space-y-3">
      {steps.map((step, i) => {
        const seq = seqOf(step);
        const tone =
          step.kind === "guardrail" ||
          step.kind === "fallback" ||
          step.kind === "error" ||
          step.kind === "stop" ||
          step.kind === "confirmation" ||
          step.kind === "other"
            ? NOTE_TONE[step.kind]
            : step.kind === "answer"
              ? "border-indigo-300 dark:border-indigo-800"
              : BORDER;
        const indent = step.kind === "tool" ? "ml-3 sm:ml-6" : "";
        return (
          <li
            // biome-ignore lint/suspicious/noArrayIndexKey: inferred steps have no seq; the order is fixed
            key={`${step.kind}-${seq ?? i}-${i}`}
            id={seq !== null ? `${prefix}${seq}` : undefined}
            data-testid={`step-${step.kind}`}
            data-seq={seq ?? undefined}
            data-highlighted={seq !== null && highlighted === seq ? "true" : undefined}
            className={`${CARD} ${tone} ${indent} ${seq !== null && highlighted === seq ? HIGHLIGHT : ""}`}
          >
            {step.kind === "request" && <RequestCard step={step} />}
            {step.kind === "model" && <ModelCard step={step} />}
            {step.kind === "tool" && <ToolCard step={step} highlighted={highlighted} />}
            {step.kind === "answer" && <AnswerCard step={step} />}
            {(step.kind === "guardrail" ||
              step.kind === "fallback" ||
              step.kind === "error" ||
              step.kind === "stop" ||
              step.kind === "confirmation" ||
              step.kind === "other") && <NoteCard step={step} />}
          </li>
        );
      })}
    </ol>
  );
}
