"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { CARD, PRIMARY } from "@/components/admin-kit/ui";
import { useLoad } from "@/components/admin-kit/use-load";
import { useI18n } from "@/components/i18n";
import { type PromptRightsView, promptPageHref, promptsApi } from "@/features/prompts/client";
import { PromptEditor } from "./prompt-editor";

/** The list's "New prompt" button and, when pressed, the editor for version 1 (editors only). */
export function NewPrompt({ rights }: { rights: PromptRightsView }) {
  const { t } = useI18n();
  const router = useRouter();
  const [open, setOpen] = useState(false);
  const models = useLoad((signal) => promptsApi.models(signal));
  if (!open)
    return (
      <button type="button" data-testid="new-prompt" onClick={() => setOpen(true)} className={PRIMARY}>
        {t("prompts.new")}
      </button>
    );
  return (
    <section data-testid="new-prompt-panel" className={`${CARD} space-y-3 p-4`}>
      <h2 className="font-semibold">{t("prompts.new")}</h2>
      <PromptEditor
        start={{ type: "chat", messages: [{ role: "system", content: "" }], text: "", config: {} }}
        models={models.data?.models ?? []}
        rights={rights}
        onSaved={(saved) => router.push(promptPageHref(saved.name))}
        onCancel={() => setOpen(false)}
      />
    </section>
  );
}
