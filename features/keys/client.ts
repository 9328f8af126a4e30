// The key routes as the browser calls them (dates arrive as strings).
import type { z } from "zod";
import { fetchJson, type Json, pathTo, sendJson } from "@/lib/client/api";
import type {
  CreatedKey,
  createKeyInput,
  KeyListItem,
  KeyView,
  RotatedKey,
  rotateKeyInput,
  updateKeyInput,
} from "./contracts";

export const keysApi = {
  list: (signal?: AbortSignal) => fetchJson<Json<{ keys: KeyListItem[] }>>("/api/keys", signal),
  create: (input: z.input<typeof createKeyInput>) => sendJson<Json<CreatedKey>>("POST", "/api/keys", input),
  revoke: (id: string) => sendJson<Json<{ key: KeyView }>>("DELETE", pathTo("/api/keys/:id", id)),
  update: (id: string, input: z.input<typeof updateKeyInput>) =>
    sendJson<Json<{ key: KeyView }>>("PATCH", pathTo("/api/keys/:id", id), input),
  rotate: (id: string, input: z.input<typeof rotateKeyInput>) =>
    sendJson<Json<RotatedKey>>("POST", pathTo("/api/keys/:id/rotate", id), input),
};
