// The score-config routes as the browser calls them.
import type { z } from "zod";
import { fetchJson, sendJson } from "@/lib/client/api";
import type { ScoreConfigView, scoreConfigInput, scoreConfigPatch } from "./contracts";

const one = (id: string, tail = "") => `/api/score-configs/${encodeURIComponent(id)}${tail}`;

export const scoreConfigsApi = {
  list: (signal?: AbortSignal) => fetchJson<{ configs: ScoreConfigView[] }>("/api/score-configs", signal),
  create: (input: z.input<typeof scoreConfigInput>) =>
    sendJson<{ config: ScoreConfigView }>("POST", "/api/score-configs", input),
  update: (id: string, patch: z.input<typeof scoreConfigPatch>) =>
    sendJson<{ config: ScoreConfigView }>("PATCH", one(id), patch),
  archive: (id: string) => sendJson<{ config: ScoreConfigView }>("POST", one(id, "/archive")),
};
