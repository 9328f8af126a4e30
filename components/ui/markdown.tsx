"use client";

import { type ComponentProps, memo } from "react";
import Markdown, { type Components, defaultUrlTransform, type UrlTransform } from "react-markdown";
import remarkGfm from "remark-gfm";
import { useI18n } from "@/components/i18n";
import { splitPendingTable } from "./pending-table";

// Model output is untrusted: raw HTML is dropped (skipHtml), link URLs go through react-markdown's safe
// transform (no javascript:), and images load only from https: or inline data:image URLs.

const SAFE_IMAGE = /^(https:\/\/|data:image\/)/i;

const urlTransform: UrlTransform = (url, key, node) => {
  if (node.tagName === "img" && key === "src") return SAFE_IMAGE.test(url.trim()) ? url : "";
  return defaultUrlTransform(url);
};

type WithNode<Tag extends "a" | "img"> = ComponentProps<Tag> & { node?: unknown };

function ExternalLink({ node: _node, children, ...props }: WithNode<"a">) {
  const { t } = useI18n();
  if (!props.href) return <span>{children}</span>;
  return (
    <a
      {...props}
      target="_blank"
      rel="noopener noreferrer"
      className="text-indigo-600 underline underline-offset-2 hover:text-indigo-800 dark:text-indigo-400 dark:hover:text-indigo-300"
    >
      {children}
      <span className="sr-only"> {t("agent.link.newTab")}</span>
    </a>
  );
}
function SafeImage({ node: _node, src, alt }: WithNode<"img">) {
  const { t } = useI18n();
  if (typeof src !== "string" || !src) {
    return <span className="text-slate-500 italic">{t("agent.image.blocked", { alt: alt || "—" })}</span>;
  }
  // biome-ignore lint/performance/noImgElement: model output, not a static asset next/image could optimise
  return <img src={src} alt={alt ?? ""} className="my-1 max-h-80 max-w-full rounded-md" loading="lazy" />;
}

/** A table as wide as its columns need, scrolling sideways inside the bubble (browsers let keys scroll it). */
function TableScroller({ node: _node, ...props }: ComponentProps<"table"> & { node?: unknown }) {
  const { t } = useI18n();
  return (
    <section
      data-testid="agent-table-scroll"
      aria-label={t("drawer.table.scroll")}
      className="max-w-full overflow-x-auto rounded focus-visible:outline-2 focus-visible:outline-indigo-500"
    >
      <table
        {...props}
        className="w-max min-w-full border-collapse text-xs [overflow-wrap:normal] break-normal"
      />
    </section>
  );
}

/** Rows of a table still streaming: a placeholder, so raw pipes never flash before the table renders. */
function PendingTable({ rows }: { rows: number }) {
  const { t } = useI18n();
  return (
    <p
      data-testid="agent-table-pending"
      className="flex items-center gap-2 rounded-md border border-dashed border-slate-300 px-2 py-1.5 text-xs text-slate-500 dark:border-slate-600 dark:text-slate-400"
    >
      <span aria-hidden="true" className="inline-block h-2 w-2 animate-pulse rounded-full bg-slate-400" />
      {t("drawer.table.pending", { rows: String(rows) })}
    </p>
  );
}

const remarkPlugins = [remarkGfm];

const components: Components = {
  a: ExternalLink,
  img: SafeImage,
  pre: ({ node: _node, ...props }) => (
    <pre
      {...props}
      className="overflow-x-auto rounded-md bg-slate-900 p-3 font-mono text-xs leading-relaxed text-slate-100 dark:bg-black/60 [&_code]:bg-transparent [&_code]:p-0 [&_code]:text-inherit"
    />
  ),
  code: ({ node: _node, ...props }) => (
    <code
      {...props}
      className={`rounded bg-slate-200/70 px-1 py-0.5 font-mono text-[0.85em] dark:bg-slate-700/70 ${props.className ?? ""}`}
    />
  ),
  table: TableScroller,
  // Cells wrap between words at a readable width; a table wider than the bubble scrolls inside it.
  th: ({ node: _node, ...props }) => (
    <th
      {...props}
      className="max-w-64 min-w-16 border border-slate-300 bg-slate-100 px-2 py-1 text-left font-semibold dark:border-slate-600 dark:bg-slate-800"
    />
  ),
  td: ({ node: _node, ...props }) => (
    <td
      {...props}
      className="max-w-64 min-w-16 border border-slate-300 px-2 py-1 align-top dark:border-slate-600"
    />
  ),
  ul: ({ node: _node, ...props }) => <ul {...props} className="list-disc space-y-1 pl-5" />,
  ol: ({ node: _node, ...props }) => <ol {...props} className="list-decimal space-y-1 pl-5" />,
  blockquote: ({ node: _node, ...props }) => (
    <blockquote
      {...props}
      className="border-l-4 border-slate-300 pl-3 text-slate-600 dark:border-slate-600 dark:text-slate-300"
    />
  ),
  h1: ({ node: _node, ...props }) => <h3 {...props} className="text-base font-semibold" />,
  h2: ({ node: _node, ...props }) => <h4 {...props} className="text-base font-semibold" />,
  h3: ({ node: _node, ...props }) => <h5 {...props} className="font-semibold" />,
  hr: ({ node: _node, ...props }) => <hr {...props} className="border-slate-300 dark:border-slate-600" />,
};

/**
 * Markdown for chat bubbles (GFM: tables, task lists, strikethrough, autolinks); memoised per text. While the
 * text streams, a table at its end waits as a placeholder until its block is complete.
 */
export const MarkdownText = memo(function MarkdownText({
  text,
  streaming = false,
}: {
  text: string;
  streaming?: boolean;
}) {
  const { ready, pendingRows } = splitPendingTable(text, streaming);
  return (
    <div className="min-w-0 space-y-2 break-words [overflow-wrap:anywhere]">
      <Markdown remarkPlugins={remarkPlugins} skipHtml urlTransform={urlTransform} components={components}>
        {ready}
      </Markdown>
      {pendingRows > 0 && <PendingTable rows={pendingRows} />}
    </div>
  );
});
