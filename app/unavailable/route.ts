import { safeCallbackPath } from "@/lib/auth/callback-path";
import { DEPENDENCY_RETRY_AFTER_SECONDS } from "@/lib/core/errors/dependency";
import { getLocale, getTranslator } from "@/lib/i18n/server";

export const dynamic = "force-dynamic";

const escapeHtml = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!,
  );

/**
 * The page a signed-in page sends the browser to when its database is away (lib/auth/page-guards.ts): a 503 with
 * Retry-After, never Next's 500 error page, and a way back to the page it came from (`from`, a same-site path only,
 * checked as sign-in's callback is), which the page also tries again by itself. A route handler, because a page
 * cannot set its status. Public (proxy.ts): it reads nothing but the request.
 */
export async function GET(req: Request): Promise<Response> {
  const t = await getTranslator();
  const back = safeCallbackPath(new URL(req.url).searchParams.get("from"));
  const href = escapeHtml(back);
  const wait = DEPENDENCY_RETRY_AFTER_SECONDS * 2;
  const html = `<!doctype html>
<html lang="${await getLocale()}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="refresh" content="${wait};url=${href}">
<title>${escapeHtml(t("unavailable.title"))} · Tollgate</title>
</head>
<body style="font-family: system-ui, sans-serif; margin: 0; background: #f8fafc; color: #0f172a">
<main style="max-width: 32rem; margin: 15vh auto 0; padding: 0 1.25rem">
<p style="font-weight: 600; color: #4f46e5; margin: 0 0 .5rem">Tollgate</p>
<h1 style="font-size: 1.5rem; margin: 0 0 .75rem">${escapeHtml(t("unavailable.title"))}</h1>
<p style="line-height: 1.5; margin: 0 0 1.5rem">${escapeHtml(t("unavailable.body"))}</p>
<a href="${href}" data-testid="unavailable-retry" style="display: inline-block; background: #4f46e5; color: #fff; padding: .5rem 1rem; border-radius: .375rem; text-decoration: none">${escapeHtml(t("unavailable.retry"))}</a>
</main>
</body>
</html>
`;
  return new Response(html, {
    status: 503,
    headers: {
      "content-type": "text/html; charset=utf-8",
      "retry-after": String(DEPENDENCY_RETRY_AFTER_SECONDS),
      "cache-control": "no-store",
    },
  });
}
