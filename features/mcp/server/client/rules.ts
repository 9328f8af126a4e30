// The rules of what an admin may register, shared by the routes' schemas and the browser's forms (browser-safe).

/** A server's name: its tool set's name and its tools' prefix; lower case, digits, `-` and single `_`. */
export const SERVER_NAME = /^[a-z0-9](?:[a-z0-9-]|_(?!_))*$/;
export const SERVER_NAME_MAX = 30;
export const SERVER_NAME_RULE =
  "1-30 lower-case letters, digits, - or _ (no __), starting with a letter or digit, e.g. github or crm-prod";

/** An HTTP header name (RFC 9110 token). */
export const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Headers the MCP transport sets itself, or that would change how the request is carried. */
export const RESERVED_HEADERS = new Set([
  "host",
  "content-length",
  "content-type",
  "content-encoding",
  "transfer-encoding",
  "connection",
  "keep-alive",
  "upgrade",
  "te",
  "trailer",
  "accept",
  "accept-encoding",
  "last-event-id",
  "mcp-session-id",
  "mcp-protocol-version",
]);
export const MAX_HEADERS = 20;

export const TIMEOUT_MIN_MS = 1_000;
export const TIMEOUT_MAX_MS = 300_000;
export const TIMEOUT_DEFAULT_MS = 30_000;
