import type { ReactNode } from "react";
import type { MessageKey } from "@/lib/i18n/messages";
import { getTranslator } from "@/lib/i18n/server";

/** The heading of an administration screen: title, lead and, when it has one, the scope it works in. */
export async function AdminPageFrame(props: {
  title: MessageKey;
  lead: MessageKey;
  scope?: string;
  testId: string;
  children: ReactNode;
}) {
  const t = await getTranslator();
  return (
    <div data-testid={props.testId} className="min-w-0 space-y-6">
      <header className="space-y-1">
        <h1 className="text-2xl font-bold">{t(props.title)}</h1>
        <p className="text-slate-600 dark:text-slate-300">{t(props.lead)}</p>
        {props.scope && (
          <p data-testid="page-scope" className="text-sm text-slate-500">
            {props.scope}
          </p>
        )}
      </header>
      {props.children}
    </div>
  );
}
