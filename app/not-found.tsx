import Link from "next/link";
import { getTranslator } from "@/lib/i18n/server";

export default async function NotFound() {
  const t = await getTranslator();
  return (
    <main className="mx-auto max-w-xl px-4 py-16 text-center" data-testid="not-found">
      <h1 className="text-2xl font-bold">{t("notFound.title")}</h1>
      <p className="mt-2 text-slate-600 dark:text-slate-300">{t("notFound.body")}</p>
      <Link href="/" className="mt-6 inline-block text-indigo-600 hover:underline">
        {t("common.back")}
      </Link>
    </main>
  );
}
