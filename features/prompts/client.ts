// The prompt routes as the browser calls them (dates arrive as strings).
import type { z } from "zod";
import { fetchJson, sendJson } from "@/lib/client/api";
import type { ModelInfo } from "@/lib/gateway/types";
import type { newPromptInput, PlaygroundResult, PromptVersionView, playgroundInput } from "./contracts";

/** What the asker may do with the tenant's prompts. */
export type PromptRightsView = { edit: boolean; admin: boolean };

export type PromptDetail = {
  name: string;
  type: "chat" | "text";
  labels: Record<string, number>;
  versions: PromptVersionView[];
  rights: PromptRightsView;
};

/** A prompt's name in a URL: each folder segment encoded, joined by "/" ("support/triage" stays readable). */
export const promptPath = (name: string) => name.split("/").map(encodeURIComponent).join("/");

/** The prompt page of a name. */
export const promptPageHref = (name: string) => `/dev/agent/prompts/${promptPath(name)}`;

export const promptsApi = {
  get: (name: string, signal?: AbortSignal) =>
    fetchJson<PromptDetail>(`/api/prompts/${promptPath(name)}`, signal),
  rights: (signal?: AbortSignal) =>
    fetchJson<{ rights: PromptRightsView }>("/api/prompts", signal).then((r) => r.rights),
  save: (input: z.input<typeof newPromptInput>) =>
    sendJson<{ name: string; version: number; labels: string[] }>("POST", "/api/prompts", input),
  moveLabel: (name: string, label: string, version: number) =>
    sendJson<{ name: string; label: string; version: number; previous: number | null }>(
      "PUT",
      `/api/prompts/${promptPath(name)}/labels/${encodeURIComponent(label)}`,
      { version },
    ),
  archive: (name: string, version: number) =>
    sendJson("DELETE", `/api/prompts/${promptPath(name)}/versions/${version}`),
  run: (name: string, input: z.input<typeof playgroundInput>) =>
    sendJson<{ run: PlaygroundResult }>("POST", `/api/prompts/${promptPath(name)}/run`, input),
  models: (signal?: AbortSignal) =>
    fetchJson<{ models: ModelInfo[]; defaultModel: string }>("/api/agent/models", signal),
};
