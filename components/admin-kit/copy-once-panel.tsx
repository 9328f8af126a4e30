"use client";

import type { ReactNode } from "react";
import { BUTTON, PRIMARY } from "./ui";
import { useCopyText } from "./use-copy-text";

/**
 * A value the server shows this once (it keeps only a hash): to copy and pass on, then dismiss. The test ids
 * and the heading's id are `testId` with "-panel", "-title", "-copy", "-done"; the value's is `testId` itself.
 */
export function CopyOncePanel(props: {
  testId: string;
  heading: "h2" | "h3";
  title: string;
  lead: ReactNode;
  value: string;
  labels: { copy: string; copied: string; copyFailed: string; done: string };
  onDone: () => void;
}) {
  const copy = useCopyText(props.value);
  const Heading = props.heading;
  return (
    <section
      data-testid={`${props.testId}-panel`}
      aria-labelledby={`${props.testId}-title`}
      className="min-w-0 space-y-3 rounded-lg border border-amber-300 bg-amber-50 p-4 dark:border-amber-700/60 dark:bg-amber-950/30"
    >
      <Heading id={`${props.testId}-title`} className="font-semibold text-amber-900 dark:text-amber-100">
        {props.title}
      </Heading>
      <p className="text-sm text-amber-900 dark:text-amber-200">{props.lead}</p>
      <div className="flex flex-col gap-2 sm:flex-row sm:items-center">
        <code
          ref={copy.ref}
          data-testid={props.testId}
          className="min-w-0 flex-1 rounded-md border border-amber-200 bg-white px-3 py-2 font-mono text-sm break-all select-all dark:border-amber-800 dark:bg-slate-900"
        >
          {props.value}
        </code>
        <div className="flex gap-2">
          <button type="button" data-testid={`${props.testId}-copy`} onClick={copy.copy} className={PRIMARY}>
            {copy.state === "copied" ? `✓ ${props.labels.copied}` : props.labels.copy}
          </button>
          <button
            type="button"
            data-testid={`${props.testId}-done`}
            onClick={props.onDone}
            className={BUTTON}
          >
            {props.labels.done}
          </button>
        </div>
      </div>
      <p role="status" className="text-xs text-amber-900 dark:text-amber-200">
        {copy.state === "failed" ? props.labels.copyFailed : ""}
      </p>
    </section>
  );
}
