import type { EntraCredentials } from "../config";
import { GatewayError } from "../errors";
import { nodeRequest } from "./node-fetch";

/** How long before its expiry a token is replaced (Azure's own SDKs refresh five minutes ahead too). */
const REFRESH_BEFORE_MS = 5 * 60_000;
/** A token endpoint that does not answer in this long fails the attempt (the router's timers still apply). */
const TOKEN_TIMEOUT_MS = 10_000;

/**
 * Bearer tokens from Microsoft Entra ID for one application (the OAuth 2.0 client credentials grant), as
 * Azure OpenAI takes them: fetched on first use, kept until five minutes before they expire, and fetched once
 * however many calls ask at the same time. A refused grant is an `auth` failure (the router moves to the next
 * candidate); an unreachable endpoint a `connection` one (it retries).
 */
export class EntraTokenSource {
  private current: { token: string; refreshAt: number } | null = null;
  private pending: Promise<string> | null = null;

  constructor(
    private readonly credentials: EntraCredentials,
    private readonly now: () => number = Date.now,
  ) {}

  /** A token valid for a while yet; `signal` stops this caller's wait, not the fetch others may share. */
  async token(signal?: AbortSignal): Promise<string> {
    if (this.current && this.now() < this.current.refreshAt) return this.current.token;
    this.pending ??= this.fetchToken().finally(() => {
      this.pending = null;
    });
    if (!signal) return this.pending;
    signal.throwIfAborted();
    return new Promise<string>((resolve, reject) => {
      const stop = () => reject(signal.reason);
      signal.addEventListener("abort", stop, { once: true });
      this.pending!.then(resolve, reject).finally(() => signal.removeEventListener("abort", stop));
    });
  }

  private async fetchToken(): Promise<string> {
    const { authorityHost, tenantId, clientId, clientSecret, scope } = this.credentials;
    const url = `${authorityHost.replace(/\/+$/, "")}/${encodeURIComponent(tenantId)}/oauth2/v2.0/token`;
    const body = new URLSearchParams({
      grant_type: "client_credentials",
      client_id: clientId,
      client_secret: clientSecret,
      scope,
    }).toString();
    const reply = await nodeRequest(url, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
      body,
      signal: AbortSignal.timeout(TOKEN_TIMEOUT_MS),
    }).catch((error: unknown) => {
      const cause = error instanceof Error ? (error.cause ?? error) : error;
      throw new GatewayError(
        "connection",
        `Microsoft Entra ID did not answer a token request: ${cause instanceof Error ? cause.message : String(cause)}`,
      );
    });
    const text = reply.kind === "whole" ? reply.body.toString("utf8").slice(0, 65_536) : "";
    if (reply.kind === "stream") reply.body.destroy();
    let answer: {
      access_token?: unknown;
      expires_in?: unknown;
      error?: unknown;
      error_description?: unknown;
    };
    try {
      answer = JSON.parse(text) as typeof answer;
    } catch {
      answer = {};
    }
    if (reply.status !== 200 || typeof answer.access_token !== "string") {
      // Entra's error_description starts with its AADSTS code; it names no secret.
      const why =
        typeof answer.error_description === "string"
          ? answer.error_description.split("\n")[0]!.slice(0, 300)
          : typeof answer.error === "string"
            ? answer.error
            : `HTTP ${reply.status}`;
      throw new GatewayError(
        reply.status >= 500 ? "server" : "auth",
        `Microsoft Entra ID refused a token for Azure OpenAI: ${why}`,
        reply.status >= 500 ? 502 : 401,
      );
    }
    const lifetimeMs = (Number(answer.expires_in) || 3600) * 1000;
    this.current = {
      token: answer.access_token,
      refreshAt: this.now() + Math.max(lifetimeMs - REFRESH_BEFORE_MS, lifetimeMs / 2),
    };
    return answer.access_token;
  }
}
