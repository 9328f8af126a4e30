import { type Env, trustedForwarded } from "./client-address";
import staticHeaders from "./security-headers.json";

/**
 * The headers every response carries, whatever serves it. next.config.mjs sends these on every path (static
 * files and /v1 included); proxy.ts then replaces the CSP of the dynamic responses it sees with one that has
 * this request's nonce, and adds HSTS when the site is served over HTTPS.
 */
export const STATIC_SECURITY_HEADERS: Readonly<Record<string, string>> = staticHeaders;

/** A fresh, unguessable nonce for one response's inline scripts. */
export function newNonce(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Buffer.from(bytes).toString("base64");
}

/**
 * The CSP of a dynamic response. Next reads the nonce from the request's CSP header and puts it on its own
 * inline scripts and bundles; 'strict-dynamic' lets those load the rest. Styles keep 'unsafe-inline' (React
 * style attributes), which is why they carry no nonce (a nonce would switch 'unsafe-inline' off). Forms may
 * post to this site only, and to the single sign-on provider, which a sign-in redirects to.
 */
export function contentSecurityPolicy(opts: {
  nonce: string;
  dev?: boolean;
  https?: boolean;
  ssoIssuer?: string;
}): string {
  let sso = "";
  try {
    if (opts.ssoIssuer) sso = ` ${new URL(opts.ssoIssuer).origin}`;
  } catch {
    // An unparsable issuer is reported by the SSO set-up; the policy just leaves it out.
  }
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${opts.nonce}' 'strict-dynamic'${opts.dev ? " 'unsafe-eval'" : ""}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    `connect-src 'self'${opts.dev ? " ws: wss:" : ""}`,
    "object-src 'none'",
    "base-uri 'self'",
    `form-action 'self'${sso}`,
    "frame-ancestors 'none'",
    ...(opts.https ? ["upgrade-insecure-requests"] : []),
  ].join("; ");
}

/** Whether this response goes out over HTTPS: the public URL says so, or a trusted proxy does. */
export function servedOverHttps(headers: Headers, env: Env = process.env): boolean {
  if (env.AUTH_URL?.startsWith("https://")) return true;
  return trustedForwarded(headers, "x-forwarded-proto", env) === "https";
}

export const STRICT_TRANSPORT_SECURITY = "max-age=63072000; includeSubDomains";
