import { renderToStaticMarkup } from "react-dom/server";
import { I18nProvider } from "@/components/i18n";
import { AgentCardView } from "@/features/drawer/components/cards/agent-card";
import { AgentDrawerProvider } from "@/features/drawer/components/drawer-context";
import type { Locale } from "@/lib/i18n/messages";
import type { AgentCard } from "@/lib/turns/cards";

/** A card's HTML as the drawer renders it; `canAsk`: the drawer has a tenant to send context in. */
export function renderCard(card: AgentCard, options: { canAsk?: boolean; locale?: Locale } = {}): string {
  return renderToStaticMarkup(
    <I18nProvider locale={options.locale ?? "en"}>
      <AgentDrawerProvider canAsk={options.canAsk ?? true}>
        <AgentCardView card={card} />
      </AgentDrawerProvider>
    </I18nProvider>,
  );
}
