import { LanguageSwitch, ThemeToggle } from "@/components/ui/preferences";
import { getDb } from "@/db";
import { AcceptInvitationForm } from "@/features/members/components/accept-invitation-form";
import type { InvitationLookup } from "@/features/members/contracts";
import { lookupInvitation } from "@/features/members/server/members";
import { currentUser } from "@/lib/auth/guards";
import { AppError } from "@/lib/core/errors/app-error";
import { titleMetadata } from "@/lib/i18n/metadata";
import { getTranslator } from "@/lib/i18n/server";

export const generateMetadata = titleMetadata("nav.title.invite");

type Looked = { offer: InvitationLookup } | { refused: { status: number; message: string } };

/** What the link offers, or why it cannot be used (unknown 404; used, revoked or expired 410). */
async function look(token: string): Promise<Looked> {
  try {
    return { offer: await lookupInvitation(await getDb(), token) };
  } catch (error) {
    if (error instanceof AppError && (error.code === "not_found" || error.code === "gone"))
      return { refused: { status: error.status, message: error.message } };
    throw error;
  }
}

/** An invitation link, opened by someone who may not have an account yet (a public page: see proxy.ts). */
export default async function InvitePage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  const [t, looked, signedIn] = await Promise.all([getTranslator(), look(token), currentUser()]);
  return (
    <main className="flex min-h-screen items-center justify-center p-4">
      <div className="w-full max-w-md">
        <div className="mb-4 flex justify-end gap-2">
          <LanguageSwitch />
          <ThemeToggle />
        </div>
        <div
          data-testid="invite-page"
          className="rounded-xl border border-slate-200 bg-white p-6 shadow-sm dark:border-slate-800 dark:bg-slate-900"
        >
          <p className="text-sm font-semibold tracking-wide text-indigo-600 dark:text-indigo-400">
            {t("app.name")}
          </p>
          {"refused" in looked ? (
            <div data-testid="invite-refused" data-status={looked.refused.status} className="space-y-3">
              <h1 className="text-xl font-semibold">
                {looked.refused.status === 404 ? t("invite.unknownTitle") : t("invite.goneTitle")}
              </h1>
              <p
                role="alert"
                data-testid="invite-refused-message"
                className="rounded-md border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-900 dark:border-amber-800 dark:bg-amber-950/30 dark:text-amber-100"
              >
                {looked.refused.status === 404 ? t("invite.unknown") : looked.refused.message}
              </p>
              <a
                href="/login"
                className="inline-block text-sm text-indigo-600 hover:underline dark:text-indigo-400"
              >
                {t("invite.toLogin")}
              </a>
            </div>
          ) : (
            <>
              <h1 className="mb-4 text-xl font-semibold">
                {t("invite.title", { tenant: looked.offer.tenantName })}
              </h1>
              {signedIn && signedIn.user.email.toLowerCase() !== looked.offer.email.toLowerCase() && (
                <p
                  data-testid="invite-other-user"
                  className="mb-4 rounded-md bg-slate-100 px-3 py-2 text-sm text-slate-700 dark:bg-slate-800 dark:text-slate-200"
                >
                  {t("invite.otherUser", { email: signedIn.user.email })}
                </p>
              )}
              <AcceptInvitationForm
                token={token}
                offer={{ ...looked.offer, expiresAt: looked.offer.expiresAt.toISOString() }}
              />
            </>
          )}
        </div>
      </div>
    </main>
  );
}
