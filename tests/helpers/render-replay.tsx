import { renderToStaticMarkup } from "react-dom/server";
import { I18nProvider } from "@/components/i18n";
import { ReplayView } from "@/features/replay/components/replay-view";
import type { ReplayResponse } from "@/features/replay/contracts";

/**
 * A turn replay's HTML as the page renders it in the platform view (a tenant admin's also has the drawer's Ask the
 * assistant, whose provider the shell gives).
 */
export function renderReplay(data: ReplayResponse): string {
  return renderToStaticMarkup(
    <I18nProvider locale="en">
      <ReplayView data={data} superAdmin />
    </I18nProvider>,
  );
}
