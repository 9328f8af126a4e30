import { renderToStaticMarkup } from "react-dom/server";
import { I18nProvider } from "@/components/i18n";
import { RunReplayView } from "@/features/replay/components/run-replay-view";
import type { RunReplayResponse } from "@/features/replay/contracts";

/** A run replay's HTML as the page renders it for a tenant admin. */
export function renderRunReplay(data: RunReplayResponse): string {
  return renderToStaticMarkup(
    <I18nProvider locale="en">
      <RunReplayView data={data} superAdmin={false} />
    </I18nProvider>,
  );
}
