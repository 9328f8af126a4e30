import { type Env, trustedForwarded } from "./client-address";

/** Methods that change state; GET, HEAD and OPTIONS must not, so they are not checked. */
const STATE_CHANGING = new Set(["POST", "PUT", "PATCH", "DELETE"]);

export type CsrfRefusal = {
  status: 403 | 415;
  code: "forbidden" | "unsupported_media_type";
  message: string;
};

/**
 * The origin this app is served from: AUTH_URL's when set (the public URL), else the request's own host. The
 * host comes from `Host`, or from `X-Forwarded-Host`/`X-Forwarded-Proto` only when `TRUST_PROXY` says a proxy
 * in front sets them; a client could send those headers itself. Without AUTH_URL the scheme is not known for
 * sure (TLS usually ends at a proxy), so only the host part is compared then.
 */
export function expectedOrigin(headers: Headers, env: Env = process.env): { origin?: string; host?: string } {
  if (env.AUTH_URL) {
    try {
      return { origin: new URL(env.AUTH_URL).origin };
    } catch {
      // An unparsable AUTH_URL falls back to the request's host (next-auth reports the bad value itself).
    }
  }
  const host = (
    trustedForwarded(headers, "x-forwarded-host", env) ||
    headers.get("host") ||
    ""
  ).toLowerCase();
  if (!host) return {};
  const forwardedProto = trustedForwarded(headers, "x-forwarded-proto", env);
  return forwardedProto ? { origin: `${forwardedProto}://${host}` } : { host };
}

/** Whether an `Origin` (or `Referer`) is the expected one: the whole origin when known, else the host. */
export function sameOrigin(candidate: string, expected: { origin?: string; host?: string }): boolean {
  let url: URL;
  try {
    url = new URL(candidate);
  } catch {
    return false;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return false;
  if (expected.origin) return url.origin === expected.origin;
  return Boolean(expected.host) && url.host === expected.host;
}

/** Whether a request body is a file upload by its declared type (`multipart/form-data`). */
export const isMultipartContentType = (contentType: string | null): boolean =>
  contentType?.split(";")[0]?.trim().toLowerCase() === "multipart/form-data";

/** Whether a request body is JSON by its declared type (`application/json` or any `+json` type). */
export function isJsonContentType(contentType: string | null): boolean {
  const type = contentType?.split(";")[0]?.trim().toLowerCase() ?? "";
  return type === "application/json" || (type.startsWith("application/") && type.endsWith("+json"));
}

function hasBody(headers: Headers): boolean {
  const length = headers.get("content-length");
  return Boolean(headers.get("transfer-encoding")) || (length !== null && length.trim() !== "0");
}

/**
 * The CSRF rule for a request to the app's own endpoints (pages' server actions, /api, next-auth): a
 * state-changing request must come from this origin (its `Origin`, or, when a browser sent none, a same-origin
 * `Referer` or `Sec-Fetch-Site: same-origin`), and one with a body sent to a JSON endpoint must say it is JSON,
 * which a cross-site HTML form cannot. An upload endpoint (`uploadEndpoint`) takes multipart/form-data as well:
 * a cross-site form can send that type, so there the origin check above is what refuses it.
 * Returns why it is refused, or null to let it through.
 */
export function csrfRefusal(
  req: { method: string; headers: Headers },
  opts: { jsonEndpoint: boolean; uploadEndpoint?: boolean },
  env: Env = process.env,
): CsrfRefusal | null {
  if (!STATE_CHANGING.has(req.method.toUpperCase())) return null;
  const expected = expectedOrigin(req.headers, env);
  const origin = req.headers.get("origin");
  const referer = req.headers.get("referer");
  const fetchSite = req.headers.get("sec-fetch-site");
  let fromHere: boolean;
  if (origin !== null) fromHere = origin !== "null" && sameOrigin(origin, expected);
  else if (referer) fromHere = sameOrigin(referer, expected);
  else fromHere = fetchSite === "same-origin";
  if (!fromHere) {
    return {
      status: 403,
      code: "forbidden",
      message: origin
        ? `cross-site request refused: Origin ${origin.slice(0, 200)} is not this site`
        : "cross-site request refused: the request must carry this site's Origin",
    };
  }
  const contentType = req.headers.get("content-type");
  const upload = opts.uploadEndpoint === true && isMultipartContentType(contentType);
  if (opts.jsonEndpoint && hasBody(req.headers) && !isJsonContentType(contentType) && !upload) {
    return {
      status: 415,
      code: "unsupported_media_type",
      message: opts.uploadEndpoint
        ? "the request body must be multipart/form-data (a file upload) or JSON"
        : "the request body must be JSON (Content-Type: application/json)",
    };
  }
  return null;
}
