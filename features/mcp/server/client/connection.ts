import "server-only";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { FetchLike, Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { Tool as SdkTool } from "@modelcontextprotocol/sdk/types.js";
import type { McpToolInfo, McpTransport } from "@/db/schema";
import { BlockedAddressError } from "@/lib/agent/toolsets/web/net-guard";
import type { McpCallResult } from "./results";

/** Where and how to reach one MCP server (its headers already opened). */
export type McpEndpoint = {
  url: string;
  transport: McpTransport;
  headers: Record<string, string>;
  timeoutMs: number;
};

export type ConnectOptions = {
  fetch: FetchLike;
  /** Called when the server announces tools/list_changed. */
  onToolsChanged?: () => void;
  /** Called once when the connection ends (the server went away, or close()). */
  onClosed?: () => void;
  signal?: AbortSignal;
  /**
   * Aborts when the session can no longer be trusted (a response passed the size limit): the handshake and every
   * waiting request fail at once with its reason, rather than waiting for their timeout.
   */
  failed?: AbortSignal;
};

const CLIENT_INFO = { name: "tollgate", version: "0.1.0" };
/** More tools than a model can choose among; a server offering more is cut here. */
export const MAX_TOOLS = 200;
const MAX_PAGES = 20;
const MAX_DESCRIPTION = 4_000;
const MAX_TOOL_JSON = 64_000;
/** The handshake and a listing wait at most this long, however long the server's tools may run. */
const HANDSHAKE_MAX_MS = 30_000;

/** One live MCP session (official SDK Client) over Streamable HTTP or the older HTTP+SSE transport. */
export class McpConnection {
  private closed = false;

  private constructor(
    private readonly client: Client,
    private readonly session: Transport,
    readonly transport: "streamable" | "sse",
    private readonly timeoutMs: number,
    private readonly failed: AbortSignal | undefined,
  ) {}

  /**
   * Connects (initialize handshake within the server's timeout). `auto` tries Streamable HTTP first and falls back
   * to HTTP+SSE when the server answers the POST with a 4xx, as the MCP specification describes.
   */
  static async open(endpoint: McpEndpoint, options: ConnectOptions): Promise<McpConnection> {
    const kinds: ("streamable" | "sse")[] =
      endpoint.transport === "auto" ? ["streamable", "sse"] : [endpoint.transport];
    const failures: string[] = [];
    for (const [i, kind] of kinds.entries()) {
      let connection: McpConnection | null = null;
      const client = new Client(CLIENT_INFO, {
        capabilities: {},
        listChanged: {
          tools: {
            autoRefresh: false,
            debounceMs: 100,
            onChanged: () => {
              if (connection && !connection.closed) options.onToolsChanged?.();
            },
          },
        },
      });
      const url = new URL(endpoint.url);
      const init = { headers: endpoint.headers };
      const transport: Transport =
        kind === "streamable"
          ? new StreamableHTTPClientTransport(url, { fetch: options.fetch, requestInit: init })
          : new SSEClientTransport(url, { fetch: options.fetch, requestInit: init });
      try {
        await client.connect(transport, {
          timeout: Math.min(endpoint.timeoutMs, HANDSHAKE_MAX_MS),
          signal: either(options.signal, options.failed),
        });
        connection = new McpConnection(client, transport, kind, endpoint.timeoutMs, options.failed);
        const made = connection;
        client.onclose = () => {
          if (made.closed) return;
          made.closed = true;
          options.onClosed?.();
        };
        return connection;
      } catch (thrown) {
        await client.close().catch(() => {});
        const error = options.failed?.aborted ? options.failed.reason : thrown;
        const fallBack = kind === "streamable" && i < kinds.length - 1 && isHttp4xx(error);
        if (!fallBack) {
          if (error instanceof BlockedAddressError || options.signal?.aborted) throw error;
          failures.push(`${kinds.length > 1 ? `${label(kind)}: ` : ""}${failureText(error)}`);
          throw new Error(failures.join("; "));
        }
        failures.push(`${label(kind)}: ${failureText(error)}`);
      }
    }
    throw new Error(failures.join("; "));
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Every tool the server lists (all pages, at most MAX_TOOLS), in its order. */
  async listTools(signal?: AbortSignal): Promise<McpToolInfo[]> {
    const tools: McpToolInfo[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES && tools.length < MAX_TOOLS; page++) {
      const answer = await this.guard(() =>
        this.client.listTools(cursor ? { cursor } : undefined, {
          timeout: Math.min(this.timeoutMs, HANDSHAKE_MAX_MS),
          signal: either(signal, this.failed),
        }),
      );
      for (const tool of answer.tools) {
        const info = toolInfo(tool);
        if (info && tools.length < MAX_TOOLS) tools.push(info);
      }
      cursor = answer.nextCursor;
      if (!cursor) break;
    }
    return tools;
  }

  /** One tools/call; `signal` cancels it (the server gets notifications/cancelled). */
  async callTool(
    name: string,
    args: Record<string, unknown>,
    options: { signal?: AbortSignal; timeoutMs?: number } = {},
  ): Promise<McpCallResult> {
    return (await this.guard(() =>
      this.client.callTool({ name, arguments: args }, undefined, {
        signal: either(options.signal, this.failed),
        timeout: options.timeoutMs ?? this.timeoutMs,
      }),
    )) as McpCallResult;
  }

  /** A request's failure, or the session's own when it failed meanwhile (the clearer reason). */
  private async guard<T>(request: () => Promise<T>): Promise<T> {
    try {
      return await request();
    } catch (error) {
      throw this.failed?.aborted ? this.failed.reason : error;
    }
  }

  /** Ends the session: a Streamable HTTP one is deleted on the server first (briefly; a dead server is not awaited). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.session instanceof StreamableHTTPClientTransport) {
      const ending = this.session.terminateSession().catch(() => {});
      await Promise.race([ending, new Promise((resolve) => setTimeout(resolve, 1_000).unref())]);
    }
    await this.client.close().catch(() => {});
  }
}

const either = (a?: AbortSignal, b?: AbortSignal): AbortSignal | undefined =>
  a && b ? AbortSignal.any([a, b]) : (a ?? b);

const label = (kind: "streamable" | "sse") => (kind === "streamable" ? "Streamable HTTP" : "HTTP+SSE");

/** A POST refused with a 4xx: the server may speak only the older transport. */
function isHttp4xx(error: unknown): boolean {
  return (
    error instanceof StreamableHTTPError &&
    typeof error.code === "number" &&
    error.code >= 400 &&
    error.code < 500
  );
}

/** An error as one short line (an HTTP status and the start of its body, a socket error, a timeout…). */
export function failureText(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const status =
    error instanceof StreamableHTTPError && typeof error.code === "number"
      ? `HTTP ${error.code}`
      : hasNumericCode(error) && error.code >= 400 && error.code < 600
        ? `HTTP ${error.code}`
        : null;
  const text = message.replace(/\s+/g, " ").trim();
  const short = text.length > 300 ? `${text.slice(0, 300)}…` : text;
  return status && !short.includes(String(status.slice(5))) ? `${status}: ${short}` : short;
}

function hasNumericCode(error: unknown): error is { code: number } {
  return (
    typeof error === "object" && error !== null && typeof (error as { code?: unknown }).code === "number"
  );
}

/** The parts of a listed tool Tollgate keeps; a tool too large to offer a model is left out. */
function toolInfo(tool: SdkTool): McpToolInfo | null {
  const info: McpToolInfo = {
    name: tool.name,
    ...(tool.title ? { title: tool.title } : {}),
    ...(tool.description ? { description: tool.description.slice(0, MAX_DESCRIPTION) } : {}),
    inputSchema: tool.inputSchema as Record<string, unknown>,
    ...(tool.outputSchema ? { outputSchema: tool.outputSchema as Record<string, unknown> } : {}),
    ...(tool.annotations ? { annotations: tool.annotations as Record<string, unknown> } : {}),
  };
  return JSON.stringify(info).length > MAX_TOOL_JSON ? null : info;
}
