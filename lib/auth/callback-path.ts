// Where sign-in returns to: shared by the server (the sign-in route, the login page, single sign-on) and the login
// form, so both follow the same rule. No server-only imports: the browser bundle uses it too.

/** A stand-in origin for the server, which resolves paths only (`.invalid` is never a real host). */
const SITE = "https://tollgate.invalid";

// Control characters (the URL parser silently drops tab and newlines: "/\t/evil" becomes "//evil"), backslashes
// (parsed as slashes), and the same encoded (%09, %2f, %5c…: decoded once more by some proxies and browsers).
const ENCODED_REFUSED = /%(?:[01][0-9a-f]|7f|2f|5c)/i;

function refused(path: string): boolean {
  for (let i = 0; i < path.length; i++) {
    const code = path.charCodeAt(i);
    if (code < 0x20 || code === 0x7f || code === 0x5c /* \\ */) return true;
  }
  return ENCODED_REFUSED.test(path);
}

/**
 * The same-site path to go to after sign-in, or "/" for anything else: a path that starts with one "/", holds no
 * control character, backslash or encoded slash, and still resolves to `origin` (the page's own, in the browser)
 * under the URL parser; never /login itself, so sign-in cannot loop.
 */
export function safeCallbackPath(callbackUrl: string | null | undefined, origin: string = SITE): string {
  if (!callbackUrl?.startsWith("/") || callbackUrl.startsWith("//") || refused(callbackUrl)) return "/";
  let site: URL;
  let target: URL;
  try {
    site = new URL(origin);
    target = new URL(callbackUrl, site);
  } catch {
    return "/";
  }
  if (target.origin !== site.origin) return "/";
  const path = `${target.pathname}${target.search}${target.hash}`;
  return path.startsWith("/login") ? "/" : path;
}
