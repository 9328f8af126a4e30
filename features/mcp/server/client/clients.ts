import "server-only";
import { createHash } from "node:crypto";
import type { BlockList } from "node:net";
import { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Database } from "@/db";
import type { McpServerRow } from "@/db/schema";
import { BlockedAddressError, type Resolver } from "@/lib/agent/toolsets/web/net-guard";
import { log } from "@/lib/core/process/log";
import { maskText } from "@/lib/core/text/mask";
import { type McpConnection as Connection, failureText, McpConnection } from "./connection";
import { McpFailure } from "./errors";
import { DEFAULT_MAX_RESPONSE_BYTES, guardedFetch } from "./guarded-fetch";
import type { McpCallResult } from "./results";
import { headerContext, type SecretBox } from "./secrets";
import { type McpListing, recordFailure, recordListing, recordReached } from "./store";

/** What the client needs of a server row (a stored one, or one about to be stored). */
export type McpServerConfig = Pick<
  McpServerRow,
  "id" | "tenantId" | "name" | "url" | "transport" | "headers" | "timeoutMs"
>;

export type McpClientsOptions = {
  db: () => Promise<Database>;
  /** WEB_FETCH_ALLOW: the ranges opened despite the address guard (shared with web_fetch). */
  allow: BlockList;
  resolver?: Resolver;
  /** MCP_MAX_RESPONSE_BYTES: decoded bytes one response (or one event of a stream) may carry; default 4 MB. */
  maxResponseBytes?: number;
  /** Opens the sealed header values; null when MCP_SECRET_KEY is not set. */
  box: SecretBox | null;
  /** A connection unused this long is closed (default 5 minutes). */
  idleMs?: number;
  /** At most this many open connections in this process; the least recently used is closed first. */
  maxLive?: number;
  /** Told after a server's stored tool list changed (a tools/list_changed from the server, a refresh). */
  onToolsChanged?: (tenantId: string, serverId: string) => void;
};

type Live = {
  tenantId: string;
  fingerprint: string;
  connection: Promise<Connection>;
  lastUsed: number;
  inFlight: number;
  timer?: NodeJS.Timeout;
};

/**
 * The process's MCP sessions, one per server, opened on first use (through the address guard, with the server's
 * opened headers), shared by every call, closed when idle, and replaced when the server's settings change.
 */
export class McpClients {
  private readonly live = new Map<string, Live>();
  private readonly idleMs: number;
  private readonly maxLive: number;

  constructor(private readonly options: McpClientsOptions) {
    this.idleMs = options.idleMs ?? 5 * 60_000;
    this.maxLive = options.maxLive ?? 200;
  }

  /** Whether header values can be sealed and opened (MCP_SECRET_KEY is set). */
  get canSeal(): boolean {
    return this.options.box !== null;
  }

  /** Seals a header value for its place (tenant, server, header); throws when there is no key. */
  seal(server: Pick<McpServerConfig, "tenantId" | "id">, header: string, value: string): string {
    if (!this.options.box) throw new Error("MCP_SECRET_KEY is not set");
    return this.options.box.seal(value, headerContext(server.tenantId, server.id, header));
  }

  /**
   * Connects if needed and lists the server's tools, without storing them (registration stores the row with the
   * answer). Throws McpFailure with the reason.
   */
  async list(server: McpServerConfig, signal?: AbortSignal): Promise<McpListing> {
    const started = performance.now();
    return this.using(server, signal, async (connection) => ({
      tools: await connection.listTools(signal),
      transport: connection.transport,
      latencyMs: Math.round(performance.now() - started),
      checkedAt: new Date(),
    }));
  }

  /**
   * Lists the tools of a stored server and stores them with its status (or the failure); tools it did not list
   * before start switched off (`added`). Throws on failure.
   */
  async refresh(server: McpServerConfig, signal?: AbortSignal): Promise<McpListing & { added: string[] }> {
    let listing: McpListing;
    try {
      listing = await this.list(server, signal);
    } catch (error) {
      // A failed connect has recorded itself; a failed listing is recorded here.
      if (error instanceof McpFailure && error.stage === "request")
        await this.status(server, (db) =>
          recordFailure(db, server.tenantId, server.id, { error: error.message, checkedAt: new Date() }),
        );
      throw error;
    }
    const { added } = await recordListing(await this.options.db(), server.tenantId, server.id, listing);
    if (added.length)
      log.info(
        { serverId: server.id, tools: added },
        "an MCP server listed new tools; they start switched off",
      );
    this.options.onToolsChanged?.(server.tenantId, server.id);
    return { ...listing, added };
  }

  /**
   * Calls one tool (by its name on the server). `signal` is Stop and the loop's timeout: it cancels the request
   * (the server gets notifications/cancelled). A session the server forgot is reopened and the call sent once more
   * (the server never ran it); any other failure is thrown as it is.
   */
  async call(
    server: McpServerConfig,
    tool: string,
    args: Record<string, unknown>,
    options: { signal?: AbortSignal; timeoutMs?: number } = {},
  ): Promise<McpCallResult> {
    try {
      return await this.using(server, options.signal, (c) => c.callTool(tool, args, options));
    } catch (error) {
      if (!(error instanceof StreamableHTTPError && error.code === 404) || options.signal?.aborted)
        throw error;
      this.forget(server.id);
      return this.using(server, options.signal, (c) => c.callTool(tool, args, options));
    }
  }

  /** Closes the server's session here (deleted, or its settings changed). */
  forget(serverId: string): void {
    const live = this.live.get(serverId);
    if (!live) return;
    this.live.delete(serverId);
    clearTimeout(live.timer);
    live.connection.then((c) => c.close()).catch(() => {});
  }

  /** Closes every session (shutdown, tests). */
  async close(): Promise<void> {
    const all = [...this.live.keys()];
    const closing = all.map((id) =>
      this.live
        .get(id)!
        .connection.then((c) => c.close())
        .catch(() => {}),
    );
    for (const id of all) this.forget(id);
    await Promise.all(closing);
  }

  /** Open sessions in this process (health, tests). */
  get openSessions(): number {
    return this.live.size;
  }

  /** Runs `work` on the server's session (opened first when needed); failures come back as McpFailure. */
  private async using<T>(
    server: McpServerConfig,
    signal: AbortSignal | undefined,
    work: (connection: Connection) => Promise<T>,
  ): Promise<T> {
    const live = this.liveFor(server);
    live.inFlight++;
    live.lastUsed = Date.now();
    try {
      const connection = await live.connection;
      try {
        return await work(connection);
      } catch (error) {
        if (signal?.aborted) throw signal.reason ?? error;
        if (connection.isClosed) this.dropIfCurrent(server.id, live);
        // A forgotten session is the caller's to retry (see call()).
        if (error instanceof StreamableHTTPError && error.code === 404) throw error;
        throw new McpFailure("request", maskText(failureText(error)));
      }
    } finally {
      live.inFlight--;
      live.lastUsed = Date.now();
      this.scheduleIdle(server.id, live);
    }
  }

  private liveFor(server: McpServerConfig): Live {
    const fingerprint = fingerprintOf(server);
    const existing = this.live.get(server.id);
    if (existing && existing.fingerprint === fingerprint) {
      // Most recently used last, so eviction takes the oldest first.
      this.live.delete(server.id);
      this.live.set(server.id, existing);
      return existing;
    }
    if (existing) this.forget(server.id);
    const live = { tenantId: server.tenantId, fingerprint, lastUsed: Date.now(), inFlight: 0 } as Live;
    live.connection = this.connect(server, live);
    // A failed connect is not kept: the next use tries again.
    live.connection.catch(() => this.dropIfCurrent(server.id, live));
    this.live.set(server.id, live);
    this.evict();
    return live;
  }

  /** Opens a session; the stored status says whether (and how fast) the server was reached. */
  private async connect(server: McpServerConfig, live: Live): Promise<Connection> {
    const started = performance.now();
    // A response past the size limit ends the session: its waiting requests fail with the limit's message.
    const tripwire = new AbortController();
    const tooLarge = (error: Error) => {
      if (tripwire.signal.aborted) return;
      tripwire.abort(error);
      log.warn({ serverId: server.id, err: error }, "an MCP server's response passed the size limit");
      this.dropIfCurrent(server.id, live);
    };
    let connection: Connection;
    try {
      connection = await McpConnection.open(
        {
          url: server.url,
          transport: server.transport,
          headers: this.openHeaders(server),
          timeoutMs: server.timeoutMs,
        },
        {
          fetch: guardedFetch({
            allow: this.options.allow,
            resolver: this.options.resolver,
            maxResponseBytes: this.options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
            onTooLarge: tooLarge,
          }),
          failed: tripwire.signal,
          onToolsChanged: () => void this.toolsChanged(server, live),
          onClosed: () => this.dropIfCurrent(server.id, live),
        },
      );
    } catch (error) {
      const failure =
        error instanceof McpFailure
          ? error
          : new McpFailure("connect", maskText(failureText(error)), error instanceof BlockedAddressError);
      void this.status(server, (db) =>
        recordFailure(db, server.tenantId, server.id, { error: failure.message, checkedAt: new Date() }),
      );
      throw failure;
    }
    const latencyMs = Math.round(performance.now() - started);
    void this.status(server, (db) =>
      recordReached(db, server.tenantId, server.id, {
        transport: connection.transport,
        latencyMs,
        checkedAt: new Date(),
      }),
    );
    return connection;
  }

  /** Writes a status change off the caller's path (a row not stored yet is simply not updated). */
  private async status(server: McpServerConfig, write: (db: Database) => Promise<void>): Promise<void> {
    try {
      await write(await this.options.db());
    } catch (err) {
      log.warn({ err, serverId: server.id }, "could not record an MCP server's status");
    }
  }

  /** The server announced a new tool list: store it (only if this session is still the server's current one). */
  private async toolsChanged(server: McpServerConfig, live: Live): Promise<void> {
    if (this.live.get(server.id) !== live) return;
    try {
      await this.refresh(server);
    } catch (err) {
      log.warn(
        { err, serverId: server.id },
        "could not refresh an MCP server's tools after tools/list_changed",
      );
    }
  }

  private openHeaders(server: McpServerConfig): Record<string, string> {
    if (!server.headers.length) return {};
    const box = this.options.box;
    if (!box) throw new McpFailure("connect", "its headers cannot be opened: MCP_SECRET_KEY is not set");
    try {
      return Object.fromEntries(
        server.headers.map((h) => [
          h.name,
          box.open(h.sealed, headerContext(server.tenantId, server.id, h.name)),
        ]),
      );
    } catch (error) {
      throw new McpFailure("connect", `its headers cannot be opened: ${(error as Error).message}`);
    }
  }

  private dropIfCurrent(serverId: string, live: Live): void {
    if (this.live.get(serverId) === live) this.forget(serverId);
  }

  private scheduleIdle(serverId: string, live: Live): void {
    clearTimeout(live.timer);
    live.timer = setTimeout(() => {
      if (this.live.get(serverId) !== live) return;
      if (live.inFlight > 0) return this.scheduleIdle(serverId, live);
      this.forget(serverId);
    }, this.idleMs);
    live.timer.unref();
  }

  private evict(): void {
    for (const [id, live] of this.live) {
      if (this.live.size <= this.maxLive) break;
      if (live.inFlight === 0) this.forget(id);
    }
  }
}

/** What the session depends on: a change to any of it means a new session. */
function fingerprintOf(server: McpServerConfig): string {
  return createHash("sha256")
    .update(JSON.stringify([server.url, server.transport, server.headers, server.timeoutMs]))
    .digest("hex");
}
