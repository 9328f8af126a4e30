import { type NextRequest, NextResponse } from "next/server";

const PUBLIC_PAGES = ["/login"];
/** Pages under these prefixes are public too: an invitation link is opened before its account exists. */
const PUBLIC_PREFIXES = ["/invite/"];
const isPublic = (pathname: string) =>
  PUBLIC_PAGES.includes(pathname) || PUBLIC_PREFIXES.some((prefix) => pathname.startsWith(prefix));
const SESSION_COOKIES = ["authjs.session-token", "__Secure-authjs.session-token"];

/**
 * Only redirects: a visitor with no session cookie goes to /login and comes back afterwards. Whether the cookie
 * is valid, and what the user may see, is decided by the guards in every page and handler.
 */
export function proxy(req: NextRequest) {
  const { pathname, search } = req.nextUrl;
  const hasSession = req.cookies
    .getAll()
    .some((c) => SESSION_COOKIES.some((name) => c.name.startsWith(name)));
  if (!hasSession && !isPublic(pathname)) {
    const login = new URL("/login", req.url);
    login.searchParams.set("callbackUrl", pathname + search);
    return NextResponse.redirect(login);
  }
  const headers = new Headers(req.headers);
  headers.set("x-pathname", pathname + search);
  return NextResponse.next({ request: { headers } });
}

export const config = {
  // Pages only: API routes answer 401 themselves, and static files need no session.
  matcher: ["/((?!api|v1|_next/static|_next/image|favicon.ico|.*\\.(?:png|svg|jpg|ico|css|js)$).*)"],
};
