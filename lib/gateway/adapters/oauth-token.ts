import { GatewayError } from "../errors";
import { nodeRequest } from "./node-fetch";

/** How long before its expiry a token is replaced (Azure's and Google's own SDKs refresh five minutes ahead too). */
const REFRESH_BEFORE_MS = 5 * 60_000;
/** A token endpoint that does not answer in this long fails the attempt (the router's timers still apply). */
const TOKEN_TIMEOUT_MS = 10_000;

/** One token request: where it goes, its form, and how its failures are told. */
export type TokenGrant = {
  url: string;
  form: Record<string, string>;
  /** "Microsoft Entra ID did not answer a token request" */
  unreachable: string;
  /** "Microsoft Entra ID refused a token for Azure OpenAI" */
  refused: string;
};

/**
 * Bearer tokens from an OAuth 2.0 token endpoint (Entra ID's client credentials, Google's JWT-bearer grant):
 * fetched on first use, kept until five minutes before they expire, and fetched once however many calls ask at
 * the same time. A refused grant is an `auth` failure (the router moves to the next candidate); an unreachable
 * endpoint a `connection` one (it retries).
 */
export abstract class OAuthTokenSource {
  private current: { token: string; refreshAt: number } | null = null;
  private pending: Promise<string> | null = null;

  constructor(protected readonly now: () => number = Date.now) {}

  /** The request for a new token (made per fetch: a signed assertion carries its time). */
  protected abstract grant(): TokenGrant;

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
    const grant = this.grant();
    const reply = await nodeRequest(grant.url, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
      body: new URLSearchParams(grant.form).toString(),
      signal: AbortSignal.timeout(TOKEN_TIMEOUT_MS),
    }).catch((error: unknown) => {
      const cause = error instanceof Error ? (error.cause ?? error) : error;
      throw new GatewayError(
        "connection",
        `${grant.unreachable}: ${cause instanceof Error ? cause.message : String(cause)}`,
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
      // Entra's error_description starts with its AADSTS code; neither names a secret.
      const why =
        typeof answer.error_description === "string"
          ? answer.error_description.split("\n")[0]!.slice(0, 300)
          : typeof answer.error === "string"
            ? answer.error
            : `HTTP ${reply.status}`;
      throw new GatewayError(
        reply.status >= 500 ? "server" : "auth",
        `${grant.refused}: ${why}`,
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
