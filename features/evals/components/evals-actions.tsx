"use client";

import { NewDataset } from "./new-dataset";
import { NewRun } from "./new-run";

/** The evaluations page's "New dataset" and "New run"; each opens its form in place, full width. */
export function EvalsActions() {
  return (
    <div data-testid="evals-actions" className="flex flex-wrap items-start gap-2 [&>section]:basis-full">
      <NewDataset />
      <NewRun />
    </div>
  );
}
