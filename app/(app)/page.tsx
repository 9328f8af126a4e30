import Link from "next/link";
import { navGroups } from "@/components/ui/nav-links";
import { AdminHomeTiles, MemberHomeTiles, ReviewItemsTile } from "@/features/home/components";
import { readAdminHome, readMemberHome } from "@/features/home/server";
import { listQueues, reviewerOf } from "@/features/reviews/server";
import { isTenantAdmin } from "@/lib/auth/guards";
import { requireUser } from "@/lib/auth/page-guards";
import type { MessageKey } from "@/lib/i18n/messages";
import { titleMetadata } from "@/lib/i18n/metadata";
import { getLocale, getTranslator } from "@/lib/i18n/server";
import { container } from "@/server/container";

export const generateMetadata = titleMetadata("nav.home");

const POINTS: MessageKey[] = [
  "home.point.gateway",
  "home.point.ledger",
  "home.point.audit",
  "home.point.budget",
];

/**
 * The home: a tenant admin's day (spend against the budget, calls and failures, top models and keys, alerts), a
 * member's own conversations and usage, and the product's outline for whoever has no tenant chosen (the super
 * admin's platform view, or someone not yet a member of one).
 */
export default async function HomePage() {
  const auth = await requireUser();
  const [t, locale] = await Promise.all([getTranslator(), getLocale()]);
  const admin = isTenantAdmin(auth);
  const groups = navGroups({
    tenantAdmin: admin,
    superAdmin: auth.user.isSuperAdmin,
    member: !!auth.tenant,
    promptEditor: auth.tenant?.promptEditor ?? false,
    reviewer: auth.tenant?.reviewer ?? false,
  });
  const scope = auth.tenant
    ? t("home.activeTenant", { tenant: auth.tenant.name, role: t(`role.${auth.tenant.role}`) })
    : auth.user.isSuperAdmin
      ? t("home.platform")
      : t("home.noTenant");
  const app = container();
  const sources = { db: await app.db(), counters: app.stores.counters, pages: app.pages };
  const [adminHome, memberHome] = auth.tenant
    ? admin
      ? [await readAdminHome(sources, auth), null]
      : [null, await readMemberHome(sources, auth)]
    : [null, null];
  const day = adminHome?.today ?? memberHome?.today;
  // The review queues the viewer may work (an admin: every live queue; a reviewer: those open to reviewers).
  const reviewQueues =
    auth.tenant && (admin || auth.tenant.reviewer)
      ? (await listQueues(await app.db(), reviewerOf(auth))).map((q) => ({
          id: q.id,
          name: q.name,
          open: q.counts.open,
        }))
      : null;
  const reviewTile = reviewQueues && <ReviewItemsTile queues={reviewQueues} t={t} locale={locale} />;
  return (
    <div className="space-y-8">
      {auth.tenant ? (
        <section className="space-y-1">
          <h1 className="text-2xl font-bold tracking-tight">
            {t("home.today", { tenant: auth.tenant.name })}
          </h1>
          {day && (
            <p className="text-sm text-slate-600 dark:text-slate-300">{t("home.todayLead", { day })}</p>
          )}
          <p data-testid="home-scope" className="text-sm text-slate-500">
            {scope}
          </p>
        </section>
      ) : (
        <>
          <section className="space-y-3">
            <p className="text-sm font-semibold text-indigo-600 dark:text-indigo-400">{t("app.tagline")}</p>
            <h1 className="text-3xl font-bold tracking-tight">{t("home.title")}</h1>
            <p className="max-w-3xl text-slate-600 dark:text-slate-300">{t("home.lead")}</p>
            <p data-testid="home-scope" className="text-sm text-slate-500">
              {scope}
            </p>
          </section>
          <ul className="grid gap-4 sm:grid-cols-2">
            {POINTS.map((key) => (
              <li
                key={key}
                className="rounded-lg border border-slate-200 bg-white p-4 dark:border-slate-800 dark:bg-slate-900"
              >
                {t(key)}
              </li>
            ))}
          </ul>
        </>
      )}
      {adminHome && <AdminHomeTiles home={adminHome} t={t} locale={locale} extra={reviewTile} />}
      {memberHome && <MemberHomeTiles home={memberHome} t={t} locale={locale} extra={reviewTile} />}
      {groups.length > 0 && (
        <section>
          {admin && <h2 className="mb-2 font-semibold">{t("home.adminPages")}</h2>}
          <div className="grid gap-4 sm:grid-cols-2">
            {groups.map((group) => (
              <div key={group.key}>
                <h3 className="mb-2 text-xs font-semibold uppercase tracking-wide text-slate-500">
                  {t(group.label)}
                </h3>
                <div className="flex flex-wrap gap-2">
                  {group.links.map((link) => (
                    <Link
                      key={link.href}
                      href={link.href}
                      className="rounded-md border border-indigo-200 px-3 py-2 text-sm text-indigo-700 hover:bg-indigo-50 dark:border-indigo-900 dark:text-indigo-300 dark:hover:bg-indigo-950"
                    >
                      {t(link.label)}
                    </Link>
                  ))}
                </div>
              </div>
            ))}
          </div>
        </section>
      )}
    </div>
  );
}
