// The evaluation routes as the browser calls them (dates arrive as strings).
import type { z } from "zod";
import { fetchJson, sendJson } from "@/lib/client/api";
import type { ModelInfo } from "@/lib/gateway/types";
import type { createDatasetInput, createRunInput, datasetItemInput, RunView, ScorerInput } from "./contracts";

export type DatasetSummary = { id: string; name: string; description: string | null; archived?: boolean };

export type DatasetItemView = {
  id: string;
  input: unknown;
  expected: unknown;
  metadata: Record<string, unknown> | null;
  sourceTurnId?: string | null;
  createdAt?: string;
  updatedAt: string;
};

/** A run as a dataset's page lists it: its view without items. */
export type RunListEntry = Omit<RunView, "items" | "scorers"> & { targetCount: number };

export type DatasetView = DatasetSummary & {
  scorers: ScorerInput[];
  runs?: RunListEntry[];
  createdAt?: string;
  updatedAt?: string;
  items: DatasetItemView[];
};

export const datasetHref = (id: string) => `/dev/agent/evals/datasets/${encodeURIComponent(id)}`;
export const runHref = (id: string) => `/dev/agent/evals/runs/${encodeURIComponent(id)}`;
export const runExportHref = (id: string) => `/api/evals/runs/${encodeURIComponent(id)}/export`;

export const evalsApi = {
  /** The datasets that take new items and runs (archived ones are left out). */
  datasets: (signal?: AbortSignal) =>
    fetchJson<{ datasets: DatasetSummary[] }>("/api/evals/datasets", signal).then((r) =>
      r.datasets.filter((d) => !d.archived),
    ),
  dataset: (id: string, signal?: AbortSignal) =>
    fetchJson<{ dataset: DatasetView }>(`/api/evals/datasets/${encodeURIComponent(id)}`, signal).then(
      (r) => r.dataset,
    ),
  createDataset: (input: z.input<typeof createDatasetInput>) =>
    sendJson<{ id: string }>("POST", "/api/evals/datasets", input),
  appendItems: (id: string, items: z.input<typeof datasetItemInput>[]) =>
    sendJson<{ added: number; ids: string[] }>(
      "POST",
      `/api/evals/datasets/${encodeURIComponent(id)}/items`,
      { items },
    ),
  fromTurn: (id: string, turnId: string) =>
    sendJson<{ id: string }>("POST", `/api/evals/datasets/${encodeURIComponent(id)}/from-turn`, { turnId }),
  createRun: (input: z.input<typeof createRunInput>) =>
    sendJson<{ id: string }>("POST", "/api/evals/runs", input),
  run: (id: string, signal?: AbortSignal) =>
    fetchJson<RunView>(`/api/evals/runs/${encodeURIComponent(id)}`, signal),
  cancel: (id: string) => sendJson<unknown>("POST", `/api/evals/runs/${encodeURIComponent(id)}/cancel`),
  models: (signal?: AbortSignal) =>
    fetchJson<{ models: ModelInfo[]; defaultModel: string }>("/api/agent/models", signal),
};
