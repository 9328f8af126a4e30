"use client";

import Link from "next/link";
import type { ReactNode } from "react";
import { Badge } from "@/features/admin-tables/components";

/**
 * The top of a replay page, a turn's or a run's: the way back and the page's own links on one line, then the title
 * with the status, any other badges and the id; what a page adds below (buttons, an error) comes as children.
 */
export function ReplayHeader(props: {
  back: { href: string; label: string };
  links: ReactNode;
  title: string;
  status: string;
  badges?: ReactNode;
  id: { value: string; testId: string };
  children?: ReactNode;
}) {
  return (
    <header className="space-y-3">
      <nav className="flex flex-wrap items-center gap-2 text-sm">
        <Link href={props.back.href} className="text-indigo-600 hover:underline dark:text-indigo-400">
          ← {props.back.label}
        </Link>
        <span className="ml-auto flex flex-wrap gap-2">{props.links}</span>
      </nav>
      <div className="flex flex-wrap items-baseline gap-x-3 gap-y-1">
        <h1 className="text-2xl font-bold">{props.title}</h1>
        <Badge value={props.status} />
        {props.badges}
        <span data-testid={props.id.testId} className="font-mono text-xs break-all text-slate-500">
          {props.id.value}
        </span>
      </div>
      {props.children}
    </header>
  );
}
