import "server-only";
import type { z } from "zod";

/** Who may call an operation: the guard its route is wrapped in (lib/auth/guards), or the key or token it reads. */
export type Guard =
  /** `route()` or a plain handler: no sign-in (health, sign-in, invitation links, this document). */
  | "public"
  /** `withUser`: a session cookie (401 without one). */
  | "user"
  /** `withTenantAdmin`: a session of an admin of the active tenant, or of the super admin (401, 403). */
  | "tenant-admin"
  /** `withSuperAdmin`: a session of the platform super admin (401, 403). */
  | "super-admin"
  /** A tenant API key: `Authorization: Bearer tg_…`, or `x-api-key` (Anthropic's clients). /v1 and /mcp. */
  | "api-key"
  /** `Authorization: Bearer <METRICS_TOKEN>` when METRICS_TOKEN is set (/metrics). */
  | "metrics-token";

/** How an operation's errors read: the app's envelope, OpenAI's or Anthropic's, JSON-RPC's (/mcp), or plain text. */
export type ErrorDialect = "app" | "openai" | "anthropic" | "json-rpc" | "text";

export type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** A body (request or answer) with its example, which the test parses with the schema. */
export type Content = {
  contentType: string;
  /** Absent for a body that is not JSON (a file, CSV, an event stream): described in words. */
  schema?: z.ZodType;
  example?: unknown;
  /** The name it has under components/schemas (a `$ref`); inline when absent. */
  name?: string;
};

export type Answer = {
  description: string;
  content?: Content;
  /** Response headers worth knowing (x-request-id is on every answer and not repeated). */
  headers?: Record<string, string>;
};

export type Operation = {
  method: Method;
  /** The OpenAPI path, `{name}` for a path parameter. */
  path: string;
  /** The app/ file that serves it: the test reads it and checks the schemas and guard below against it. */
  route: string;
  /** Where the handler's body lives when the route only delegates to it (read by the test like a route). */
  handledIn?: string;
  operationId: string;
  tag: string;
  summary: string;
  description?: string;
  guard: Guard;
  /** Needs an active tenant (the tenant switcher): 400 `bad_request` without one. */
  tenant?: boolean;
  /** The rule the handler applies beyond its guard, in words (e.g. "tenant admins and prompt editors"). */
  access?: string;
  params?: {
    /** Every `{name}` of the path, each a zod schema (the very object the route validates with, where it does). */
    path?: z.ZodObject;
    /** The query, as the route parses it: the very zod object when it parses with one. */
    query?: z.ZodObject;
    /** Request headers the handler reads. */
    headers?: z.ZodObject;
  };
  body?: Content;
  /** The successful answers by status. */
  answers: Record<number, Answer>;
  errorDialect: ErrorDialect;
  /** Error statuses beyond those the guard, the body and the path imply, with when they happen. */
  errors?: Record<number, string>;
};

/** A JSON body whose example must fit the schema (checked by TypeScript here, and by parsing in the test). */
export function json<S extends z.ZodType>(schema: S, example: z.input<S>, name?: string): Content {
  return { contentType: "application/json", schema, example, ...(name ? { name } : {}) };
}

/** A JSON answer: its description, schema and example. */
export function answer<S extends z.ZodType>(
  description: string,
  schema: S,
  example: z.input<S>,
  name?: string,
): Answer {
  return { description, content: json(schema, example, name) };
}

/** An answer whose body is not JSON (CSV, a file, an event stream, Prometheus text). */
export const raw = (description: string, contentType: string, example?: string): Answer => ({
  description,
  content: { contentType, ...(example !== undefined ? { example } : {}) },
});

export const noContent = (description: string): Answer => ({ description });
