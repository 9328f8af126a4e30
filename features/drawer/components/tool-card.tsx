"use client";

import { useI18n } from "@/components/i18n";
import type { MessageKey } from "@/lib/i18n/messages";
import { fileUrl, formatBytes } from "./attachments";
import { ConfirmCard } from "./confirm-card";
import { oneLine, prettyJson } from "./format";
import type { AddedMessageSummary, ToolCardState } from "./types";

const STATUS_STYLE: Record<ToolCardState["status"], string> = {
  running: "bg-indigo-100 text-indigo-700 dark:bg-indigo-950 dark:text-indigo-300",
  ok: "bg-emerald-100 text-emerald-700 dark:bg-emerald-950 dark:text-emerald-300",
  error: "bg-red-100 text-red-700 dark:bg-red-950 dark:text-red-300",
  cancelled: "bg-slate-200 text-slate-600 dark:bg-slate-800 dark:text-slate-300",
};

const ASKING_STYLE = "bg-amber-100 text-amber-900 dark:bg-amber-950 dark:text-amber-200";

const STATUS_LABEL: Record<ToolCardState["status"], MessageKey> = {
  running: "agent.tool.running",
  ok: "agent.tool.ok",
  error: "agent.tool.error",
  cancelled: "agent.tool.cancelled",
};

/** The `{"error": "…"}` message of a failed tool result, if it has one. */
function errorMessageOf(result: string | undefined): string | null {
  if (!result) return null;
  try {
    const parsed: unknown = JSON.parse(result);
    if (parsed && typeof parsed === "object" && "error" in parsed) {
      const { error } = parsed as { error: unknown };
      return typeof error === "string" ? error : JSON.stringify(error);
    }
  } catch {
    // not JSON: show the text as it is
  }
  return result;
}

const duration = (ms: number) => (ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`);

/**
 * One tool call, compact: name, status and duration; arguments and a result preview; full JSON on demand. A call
 * that needs the user's confirmation carries its Approve / Deny (then the decision) under the name.
 */
export function ToolCard({ tool, turnId }: { tool: ToolCardState; turnId: string | null }) {
  const { t } = useI18n();
  const failed = tool.status === "error";
  const asking = tool.status === "running" && tool.confirmation?.state === "pending";
  const hasArgs = Object.keys(tool.args).length > 0;
  return (
    <section
      data-testid="agent-tool-card"
      data-tool-name={tool.name}
      data-status={tool.status}
      data-confirmation={
        tool.confirmation?.state === "pending" ? "pending" : (tool.confirmation?.decision ?? undefined)
      }
      aria-label={t("agent.tool.label", { name: tool.name })}
      className={`rounded-md border px-3 py-2 text-xs ${
        failed
          ? "border-red-300 bg-red-50/60 dark:border-red-900 dark:bg-red-950/30"
          : "border-slate-200 bg-slate-50 dark:border-slate-700 dark:bg-slate-900"
      }`}
    >
      <div className="flex flex-wrap items-center gap-2">
        <span aria-hidden="true" className="text-slate-400">
          ⚙
        </span>
        <code className="font-mono font-semibold break-all text-slate-800 dark:text-slate-100">
          {tool.name}
        </code>
        <span
          className={`rounded px-1.5 py-0.5 text-[0.7rem] ${asking ? ASKING_STYLE : STATUS_STYLE[tool.status]}`}
        >
          {tool.status === "running" && (
            <span aria-hidden="true" className="mr-1 inline-block animate-pulse">
              ●
            </span>
          )}
          {asking ? t("agent.tool.waiting") : t(STATUS_LABEL[tool.status])}
        </span>
        {tool.durationMs !== undefined && (
          <span className="ml-auto text-slate-500 dark:text-slate-400" data-testid="agent-tool-duration">
            {duration(tool.durationMs)}
          </span>
        )}
      </div>
      {tool.confirmation && (
        <ConfirmCard
          turnId={turnId}
          callId={tool.callId}
          name={tool.name}
          args={tool.args}
          confirmation={tool.confirmation}
        />
      )}
      {hasArgs && !asking && (
        <p
          className="mt-1 truncate font-mono text-slate-600 dark:text-slate-300"
          title={JSON.stringify(tool.args)}
        >
          <span className="sr-only">{t("agent.tool.args")}: </span>
          {oneLine(tool.args)}
        </p>
      )}
      {failed ? (
        <p className="mt-1 text-red-700 dark:text-red-300" data-testid="agent-tool-error">
          {errorMessageOf(tool.result)}
        </p>
      ) : (
        tool.result !== undefined && (
          <p className="mt-1 line-clamp-2 font-mono break-all text-slate-700 dark:text-slate-200">
            <span className="sr-only">{t("agent.tool.result")}: </span>
            {oneLine(tool.result, 240)}
          </p>
        )
      )}
      {tool.message && <AddedMessage message={tool.message} />}
      {!asking && (hasArgs || tool.result !== undefined) && (
        <details className="mt-1">
          <summary className="cursor-pointer text-indigo-600 dark:text-indigo-400">
            {t("agent.tool.details")}
          </summary>
          {hasArgs && (
            <>
              <p className="mt-1 font-semibold">{t("agent.tool.args")}</p>
              <pre className="max-h-48 overflow-auto rounded bg-white p-2 font-mono whitespace-pre-wrap break-all dark:bg-slate-950">
                {JSON.stringify(tool.args, null, 2)}
              </pre>
            </>
          )}
          {tool.result !== undefined && (
            <>
              <p className="mt-1 font-semibold">{t("agent.tool.result")}</p>
              <pre className="max-h-64 overflow-auto rounded bg-white p-2 font-mono whitespace-pre-wrap break-all dark:bg-slate-950">
                {prettyJson(tool.result)}
              </pre>
            </>
          )}
        </details>
      )}
    </section>
  );
}

/**
 * The message a call added for the model (an image load_image loaded): its text, and its images, an attachment's as
 * a thumbnail from the conversation's own file, a URL's by its address and size (the browser fetches nothing from
 * outside).
 */
function AddedMessage({ message }: { message: AddedMessageSummary }) {
  const { t } = useI18n();
  return (
    <figure
      data-testid="agent-tool-message"
      className="mt-1 rounded border border-slate-200 bg-white p-2 dark:border-slate-700 dark:bg-slate-950"
    >
      <figcaption className="font-semibold text-slate-600 dark:text-slate-300">
        {t("agent.tool.shown")}
      </figcaption>
      <p
        className="mt-1 line-clamp-2 break-words text-slate-700 dark:text-slate-200"
        title={message.text}
        data-testid="agent-tool-message-text"
      >
        {message.text}
      </p>
      <ul className="mt-1 flex flex-wrap gap-2 empty:hidden">
        {message.images.map((image) => {
          const name = image.name ?? image.type;
          return (
            <li
              key={`${image.fileId ?? name}-${image.size}`}
              className="max-w-full min-w-0"
              data-testid="agent-tool-message-image"
            >
              {image.fileId ? (
                // biome-ignore lint/performance/noImgElement: the user's own file from our route, at its size.
                <img
                  src={fileUrl(image.fileId)}
                  alt={t("agent.tool.image", { name })}
                  className="max-h-32 max-w-full rounded border border-slate-200 dark:border-slate-700"
                  loading="lazy"
                />
              ) : (
                <span className="block truncate font-mono text-slate-700 dark:text-slate-200" title={name}>
                  {t("agent.tool.image", { name })}
                </span>
              )}
              <span className="block text-slate-500 dark:text-slate-400">
                {image.type} · {formatBytes(image.size)}
              </span>
            </li>
          );
        })}
      </ul>
    </figure>
  );
}
