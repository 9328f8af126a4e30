// The evaluation routes as the browser calls them (dates arrive as strings).
import type { z } from "zod";
import { fetchJson, sendJson } from "@/lib/client/api";
import type { ModelInfo } from "@/lib/gateway/types";
import type { createDatasetInput, createRunInput, datasetItemInput, RunView, ScorerInput } from "./contracts";

export type DatasetSummary = { id: string; name: string; description: string | null };

export type DatasetItemView = {
  id: string;
  input: unknown;
  expected: unknown;
  metadata: Record<string, unknown> | null;
  sourceTurnId?: string | null;
  createdAt?: string;
  updatedAt: string;
};

export type DatasetView = DatasetSummary & {
  scorers: ScorerInput[];
  createdAt?: string;
  updatedAt?: string;
  items: DatasetItemView[];
};

export const datasetHref = (id: string) => `/dev/agent/evals/datasets/${encodeURIComponent(id)}`;
export const runHref = (id: string) => `/dev/agent/evals/runs/${encodeURIComponent(id)}`;
export const runExportHref = (id: string) => `/api/evals/runs/${encodeURIComponent(id)}/export`;

/** The list route answers `{datasets}` (or a bare array): either way, the datasets. */
const datasetsOf = (body: unknown): DatasetSummary[] =>
  Array.isArray(body)
    ? body
    : body && typeof body === "object" && "datasets" in body && Array.isArray(body.datasets)
      ? (body.datasets as DatasetSummary[])
      : [];

export const evalsApi = {
  datasets: (signal?: AbortSignal) => fetchJson<unknown>("/api/evals/datasets", signal).then(datasetsOf),
  dataset: (id: string, signal?: AbortSignal) =>
    fetchJson<DatasetView>(`/api/evals/datasets/${encodeURIComponent(id)}`, signal),
  createDataset: (input: z.input<typeof createDatasetInput>) =>
    sendJson<{ id: string }>("POST", "/api/evals/datasets", input),
  appendItems: (id: string, items: z.input<typeof datasetItemInput>[]) =>
    sendJson<unknown>("POST", `/api/evals/datasets/${encodeURIComponent(id)}/items`, { items }),
  fromTurn: (id: string, turnId: string) =>
    sendJson<unknown>("POST", `/api/evals/datasets/${encodeURIComponent(id)}/from-turn`, { turnId }),
  createRun: (input: z.input<typeof createRunInput>) =>
    sendJson<{ id: string }>("POST", "/api/evals/runs", input),
  run: (id: string, signal?: AbortSignal) =>
    fetchJson<RunView>(`/api/evals/runs/${encodeURIComponent(id)}`, signal),
  cancel: (id: string) => sendJson<unknown>("POST", `/api/evals/runs/${encodeURIComponent(id)}/cancel`),
  models: (signal?: AbortSignal) =>
    fetchJson<{ models: ModelInfo[]; defaultModel: string }>("/api/agent/models", signal),
};
