import { type NextRequest, NextResponse } from "next/server";
import { AppError, toErrorResponse } from "@/lib/core/errors/app-error";
import { isDraining } from "@/lib/core/process/lifecycle";
import { csrfRefusal } from "@/lib/http/same-origin";
import {
  contentSecurityPolicy,
  newNonce,
  STRICT_TRANSPORT_SECURITY,
  servedOverHttps,
} from "@/lib/http/security-headers";

/**
 * /docs/api renders the API reference, public like GET /api/openapi.json (it describes code, never data);
 * /unavailable is the 503 page of a database outage (it reads nothing).
 */
const PUBLIC_PAGES = ["/login", "/docs/api", "/unavailable"];
/** Pages under these prefixes are public too: an invitation link is opened before its account exists. */
const PUBLIC_PREFIXES = ["/invite/"];
const isPublic = (pathname: string) =>
  PUBLIC_PAGES.includes(pathname) || PUBLIC_PREFIXES.some((prefix) => pathname.startsWith(prefix));
const SESSION_COOKIES = ["authjs.session-token", "__Secure-authjs.session-token"];

const isApi = (pathname: string) => pathname === "/api" || pathname.startsWith("/api/");
/** next-auth's own endpoints take HTML form posts (and check their own CSRF token as well). */
const isNextAuth = (pathname: string) => pathname.startsWith("/api/auth/");
/** Endpoints that take a file as multipart/form-data (from this site only, like every other POST). */
const UPLOAD_ENDPOINTS = new Set(["/api/agent/files", "/api/skills/import"]);

/**
 * The one place every request to the app's own pages and /api passes (the /v1 API and /mcp are not here: they are
 * called with API keys, never cookies, so a cross-site page cannot borrow a session there):
 * - CSRF: a state-changing request must come from this site, and one with a body to a JSON endpoint must be
 *   JSON (403 / 415 in the app's error shape), before any handler, server action or next-auth parses it; the
 *   upload endpoint takes multipart/form-data too;
 * - a CSP with a fresh nonce for Next's inline scripts (HSTS too over HTTPS); the other security headers come
 *   from next.config.mjs for every response;
 * - pages only: a visitor with no session cookie goes to /login and comes back afterwards. Whether the cookie
 *   is valid, and what the user may see, is decided by the guards in every page and handler.
 */
export function proxy(req: NextRequest) {
  const { pathname, search } = req.nextUrl;
  // A stopping instance (SIGTERM) takes no new work: the client retries elsewhere; reads and probes still answer.
  if (isDraining() && isApi(pathname) && req.method !== "GET" && req.method !== "HEAD") {
    const answer = toErrorResponse(
      new AppError("unavailable", "This Tollgate instance is shutting down; retry.", {
        retryAfterSeconds: 1,
      }),
      crypto.randomUUID(),
    );
    const res = Response.json(answer.body, { status: answer.status, headers: answer.headers });
    return withSecurityHeaders(req, res, newNonce());
  }
  const refusal = csrfRefusal(req, {
    jsonEndpoint: isApi(pathname) && !isNextAuth(pathname),
    uploadEndpoint: UPLOAD_ENDPOINTS.has(pathname),
  });
  if (refusal) {
    const requestId = crypto.randomUUID();
    const answer = toErrorResponse(new AppError(refusal.code, refusal.message), requestId);
    return withSecurityHeaders(
      req,
      Response.json(answer.body, { status: refusal.status, headers: answer.headers }),
      newNonce(),
    );
  }

  const nonce = newNonce();
  if (!isApi(pathname)) {
    const hasSession = req.cookies
      .getAll()
      .some((c) => SESSION_COOKIES.some((name) => c.name.startsWith(name)));
    if (!hasSession && !isPublic(pathname)) {
      const login = new URL("/login", req.url);
      login.searchParams.set("callbackUrl", pathname + search);
      return withSecurityHeaders(req, NextResponse.redirect(login), nonce);
    }
  }
  const headers = new Headers(req.headers);
  headers.set("x-pathname", pathname + search);
  // Next finds the nonce in the request's CSP header and stamps it on the scripts it renders.
  headers.set("x-nonce", nonce);
  headers.set("content-security-policy", policyFor(req, nonce));
  return withSecurityHeaders(req, NextResponse.next({ request: { headers } }), nonce);
}

function policyFor(req: NextRequest, nonce: string): string {
  return contentSecurityPolicy({
    nonce,
    dev: process.env.NODE_ENV === "development",
    https: servedOverHttps(req.headers),
    ssoIssuer: process.env.OIDC_ISSUER,
  });
}

function withSecurityHeaders<R extends Response>(req: NextRequest, res: R, nonce: string): R {
  res.headers.set("content-security-policy", policyFor(req, nonce));
  if (servedOverHttps(req.headers)) res.headers.set("strict-transport-security", STRICT_TRANSPORT_SECURITY);
  return res;
}

export const config = {
  // Pages, server actions and /api. Not /v1 nor /mcp (API keys, no cookies; their headers come from
  // next.config.mjs), nor /metrics (a scraper's bearer token), nor static files.
  matcher: [
    "/((?!v1/|v1$|mcp/|mcp$|metrics$|_next/static|_next/image|favicon.ico|.*\\.(?:png|svg|jpg|ico|css|js)$).*)",
  ],
};
