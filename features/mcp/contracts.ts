// What the MCP server routes take and answer, shared by the routes and the browser. Browser-safe: zod only.

import { hasNoNul, NO_NUL } from "@/db/sql-text";
import {
  HEADER_NAME,
  MAX_HEADERS,
  RESERVED_HEADERS,
  SERVER_NAME,
  SERVER_NAME_MAX,
  SERVER_NAME_RULE,
  TIMEOUT_DEFAULT_MS,
  TIMEOUT_MAX_MS,
  TIMEOUT_MIN_MS,
} from "@/features/mcp/server/client/rules";
import { z } from "@/lib/core/schema/zod";

export const MCP_ROLES = ["member", "admin"] as const;
export type McpRole = (typeof MCP_ROLES)[number];

const isHttpUrl = (text: string) => {
  try {
    const url = new URL(text);
    return url.protocol === "http:" || url.protocol === "https:";
  } catch {
    return false;
  }
};
const hasNoCredentials = (text: string) => {
  try {
    const url = new URL(text);
    return !url.username && !url.password;
  } catch {
    return true;
  }
};

const headers = z
  .record(
    z
      .string()
      .max(100)
      .regex(HEADER_NAME, "a header name is letters, digits and - (e.g. Authorization or X-Api-Key)")
      .refine(
        (name) => !RESERVED_HEADERS.has(name.toLowerCase()),
        "the MCP transport sets this header itself",
      ),
    z
      .string()
      .min(1, "give the header a value")
      .max(8_192)
      .refine(
        (value) => !value.includes("\r") && !value.includes("\n") && hasNoNul(value),
        "a header value cannot contain line breaks or NUL",
      ),
  )
  .refine((h) => Object.keys(h).length <= MAX_HEADERS, `at most ${MAX_HEADERS} headers`)
  .refine(
    (h) => new Set(Object.keys(h).map((k) => k.toLowerCase())).size === Object.keys(h).length,
    "a header is named twice (header names ignore case)",
  );

/** POST /api/mcp/servers */
export const createServerInput = z.object({
  name: z
    .string()
    .trim()
    .min(1, "name the server, e.g. github")
    .max(SERVER_NAME_MAX, SERVER_NAME_RULE)
    .regex(SERVER_NAME, SERVER_NAME_RULE),
  url: z
    .string()
    .trim()
    .min(1, "give the server's MCP endpoint, e.g. https://mcp.example.com/mcp")
    .max(2_048)
    .refine(hasNoNul, NO_NUL)
    .refine(isHttpUrl, "an http:// or https:// URL, e.g. https://mcp.example.com/mcp")
    .refine(
      hasNoCredentials,
      "put credentials in headers (their values are stored encrypted), not in the URL",
    ),
  /** How to reach it: Streamable HTTP, the older HTTP+SSE, or auto (Streamable HTTP, else HTTP+SSE). */
  transport: z.enum(["auto", "streamable", "sse"]).default("auto"),
  /** Sent with every request (e.g. Authorization); the values are stored encrypted and never shown again. */
  headers: headers.optional(),
  timeoutMs: z
    .number()
    .int()
    .min(TIMEOUT_MIN_MS, `at least ${TIMEOUT_MIN_MS} ms`)
    .max(TIMEOUT_MAX_MS, `at most ${TIMEOUT_MAX_MS} ms`)
    .default(TIMEOUT_DEFAULT_MS),
});

/** PUT /api/mcp/servers/{id}/tools/{tool} */
export const updateToolInput = z
  .object({
    enabled: z.boolean().optional(),
    /** Who may call it; null: every role. */
    roles: z
      .array(z.enum(MCP_ROLES))
      .min(1, "give at least one role, or switch the tool off")
      .nullable()
      .optional(),
    /** The turn pauses for the user's Approve / Deny before it runs. */
    requiresConfirmation: z.boolean().optional(),
  })
  .refine((v) => v.enabled !== undefined || v.roles !== undefined || v.requiresConfirmation !== undefined, {
    message: "change at least one of enabled, roles, requiresConfirmation",
  });

/** POST /api/mcp/servers/{id}/tools/{tool}/call */
export const testCallInput = z.object({
  arguments: z.record(z.string(), z.unknown()).default({}),
});

/** What the last check of a server found. */
export type McpServerStatus = {
  /** null: never checked. */
  reachable: boolean | null;
  toolCount: number;
  lastError: string | null;
  latencyMs: number | null;
  checkedAt: Date | null;
  /** The transport the last session used (what "auto" found). */
  connectedTransport: "streamable" | "sse" | null;
};

/** A server as admins see it: its headers' names only, never their values. */
export type McpServerView = {
  id: string;
  name: string;
  url: string;
  transport: "auto" | "streamable" | "sse";
  headerNames: string[];
  timeoutMs: number;
  createdAt: Date;
  status: McpServerStatus;
};

/** A tool of a server with the admin's settings for it. */
export type McpToolView = {
  /** Its name on the server (the {tool} of the routes). */
  name: string;
  /** The name the model sees: `server__tool`. */
  exposedName: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  annotations?: Record<string, unknown>;
  enabled: boolean;
  /** null: every role. */
  roles: McpRole[] | null;
  requiresConfirmation: boolean;
  /** The server listed it after registration, so Tollgate switched it off; no admin has set it since. */
  addedLater: boolean;
};

/** GET /api/mcp/servers/{id}, and what POST /api/mcp/servers answers (201). */
export type McpServerDetail = McpServerView & { toolsListedAt: Date | null; tools: McpToolView[] };

/** What a test call answers: what the model would read (cut at 8,000 characters), or the error it would get. */
export type McpTestCallResult =
  | { ok: true; content: string; durationMs: number }
  | { ok: false; error: string; durationMs: number };
