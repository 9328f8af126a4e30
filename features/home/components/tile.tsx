import Link from "next/link";
import type { ReactNode } from "react";

/** One tile of the home: a heading that links into the page (filtered) where its figures come from. */
export function Tile(props: {
  title: string;
  href: string;
  linkLabel: string;
  testId: string;
  children: ReactNode;
  wide?: boolean;
}) {
  return (
    <section
      data-testid={props.testId}
      className={`flex min-w-0 flex-col gap-3 rounded-lg border border-slate-200 bg-white p-4 dark:border-slate-800 dark:bg-slate-900 ${props.wide ? "sm:col-span-2" : ""}`}
    >
      <h2 className="text-xs font-semibold uppercase tracking-wide text-slate-500">{props.title}</h2>
      <div className="min-w-0 flex-1">{props.children}</div>
      <Link
        href={props.href}
        data-testid={`${props.testId}-link`}
        className="self-start text-sm text-indigo-700 hover:underline dark:text-indigo-300"
      >
        {props.linkLabel} →
      </Link>
    </section>
  );
}

/** A list row that links into a filtered page: the name (cut with "…" when long) and its figure. */
export function LinkRow(props: { href: string; name: string; figure: ReactNode; testId: string }) {
  return (
    <li>
      <Link
        href={props.href}
        data-testid={props.testId}
        className="flex items-baseline justify-between gap-3 rounded px-1 py-1 text-sm hover:bg-slate-50 dark:hover:bg-slate-800"
      >
        <span className="min-w-0 truncate text-indigo-700 dark:text-indigo-300" title={props.name}>
          {props.name}
        </span>
        <span className="shrink-0 tabular-nums">{props.figure}</span>
      </Link>
    </li>
  );
}
