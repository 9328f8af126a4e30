const MCP_FAILURE = Symbol.for("tollgate.McpFailure");

/**
 * A failure to use an MCP server, its message masked and short: `connect` when no session could be opened (the
 * address guard refused it, nothing answered, the handshake failed), `request` when the session's request failed
 * (a JSON-RPC error, a timeout, the connection dropped). `instanceof` goes by a brand: the container's copy of
 * this module throws it into a route's copy.
 */
export class McpFailure extends Error {
  override name = "McpFailure";
  readonly [MCP_FAILURE] = true;
  static [Symbol.hasInstance](value: unknown): boolean {
    return (
      typeof value === "object" &&
      value !== null &&
      (value as { [MCP_FAILURE]?: unknown })[MCP_FAILURE] === true
    );
  }
  constructor(
    readonly stage: "connect" | "request",
    message: string,
    /** The address guard refused the URL (not a network failure). */
    readonly refused = false,
  ) {
    super(message);
  }
}

/**
 * An MCP server answered more (decoded) bytes than MCP_MAX_RESPONSE_BYTES allows in one response (or, on a
 * long-lived event stream, in one event): the response is cut and the request fails with this message.
 */
export class McpResponseTooLarge extends Error {
  override name = "McpResponseTooLarge";
  readonly code = "mcp_response_too_large";
  constructor(
    readonly origin: string,
    readonly limit: number,
  ) {
    super(
      `the MCP server at ${origin} sent a response larger than ${limit} bytes (MCP_MAX_RESPONSE_BYTES); it was cut off`,
    );
  }
}
