// The skill routes as the browser calls them (dates arrive as strings).
import type { z } from "zod";
import { errorFromResponse, fetchJson, sendJson } from "@/lib/client/api";
import type { PromptRightsView } from "./client";
import type { newSkillInput, PromptVersionView, SkillSummaryView, SkillVersionView } from "./contracts";

export type SkillListView = {
  skills: (SkillSummaryView & { description: string })[];
  rights: PromptRightsView;
};
export type SkillDetail = {
  name: string;
  labels: Record<string, number>;
  versions: PromptVersionView[];
  rights: PromptRightsView;
};
export type Saved = { name: string; version: number; labels: string[] };

/** The page of a skill. */
export const skillPageHref = (name: string) => `/dev/agent/skills/${encodeURIComponent(name)}`;
const at = (name: string) => `/api/skills/${encodeURIComponent(name)}`;

export const skillsApi = {
  list: (signal?: AbortSignal) => fetchJson<SkillListView>("/api/skills", signal),
  get: (name: string, signal?: AbortSignal) => fetchJson<SkillDetail>(at(name), signal),
  version: (name: string, version: number, signal?: AbortSignal) =>
    fetchJson<{ version: SkillVersionView }>(`${at(name)}?version=${version}`, signal).then((r) => r.version),
  file: (name: string, version: number, path: string, signal?: AbortSignal) =>
    fetchJson<{ file: { content: string } }>(
      `${at(name)}?version=${version}&file=${encodeURIComponent(path)}`,
      signal,
    ).then((r) => r.file.content),
  save: (input: z.input<typeof newSkillInput>) => sendJson<Saved>("POST", "/api/skills", input),
  /** A zip as multipart/form-data (the one upload the import route takes besides JSON). */
  importZip: async (file: File): Promise<Saved> => {
    const form = new FormData();
    form.set("file", file);
    const res = await fetch("/api/skills/import", {
      method: "POST",
      body: form,
      headers: { accept: "application/json" },
    });
    if (!res.ok) throw await errorFromResponse(res);
    return (await res.json()) as Saved;
  },
  moveLabel: (name: string, label: string, version: number) =>
    sendJson("PUT", `${at(name)}/labels/${encodeURIComponent(label)}`, { version }),
  archive: (name: string) => sendJson("DELETE", at(name)),
  archiveVersion: (name: string, version: number) => sendJson("DELETE", `${at(name)}/versions/${version}`),
};
