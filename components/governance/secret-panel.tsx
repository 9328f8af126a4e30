"use client";

import { useRef, useState } from "react";
import { useI18n } from "@/components/i18n";
import { BUTTON, PRIMARY } from "./ui";

/** A new key's secret, shown this once: the server keeps only its hash. */
export function SecretPanel(props: { name: string; secret: string; onDone: () => void }) {
  const { t } = useI18n();
  const codeRef = useRef<HTMLElement>(null);
  const [copy, setCopy] = useState<"idle" | "copied" | "failed">("idle");

  const copySecret = async () => {
    try {
      await navigator.clipboard.writeText(props.secret);
      setCopy("copied");
    } catch {
      // No clipboard (an insecure origin, a refused permission): select it so Ctrl+C works.
      const range = document.createRange();
      if (codeRef.current) range.selectNodeContents(codeRef.current);
      window.getSelection()?.removeAllRanges();
      window.getSelection()?.addRange(range);
      setCopy("failed");
    }
  };

  return (
    <section
      data-testid="key-secret-panel"
      aria-labelledby="key-secret-title"
      className="min-w-0 space-y-3 rounded-lg border border-amber-300 bg-amber-50 p-4 dark:border-amber-700/60 dark:bg-amber-950/30"
    >
      <h2 id="key-secret-title" className="font-semibold text-amber-900 dark:text-amber-100">
        {t("gov.keys.secretTitle", { name: props.name })}
      </h2>
      <p className="text-sm text-amber-900 dark:text-amber-200">{t("gov.keys.secretOnce")}</p>
      <div className="flex flex-col gap-2 sm:flex-row sm:items-center">
        <code
          ref={codeRef}
          data-testid="key-secret"
          className="min-w-0 flex-1 rounded-md border border-amber-200 bg-white px-3 py-2 font-mono text-sm break-all select-all dark:border-amber-800 dark:bg-slate-900"
        >
          {props.secret}
        </code>
        <div className="flex gap-2">
          <button type="button" data-testid="key-secret-copy" onClick={copySecret} className={PRIMARY}>
            {copy === "copied" ? `✓ ${t("gov.keys.copied")}` : t("gov.keys.copy")}
          </button>
          <button type="button" data-testid="key-secret-done" onClick={props.onDone} className={BUTTON}>
            {t("gov.keys.secretDone")}
          </button>
        </div>
      </div>
      <p role="status" className="text-xs text-amber-900 dark:text-amber-200">
        {copy === "failed" ? t("gov.keys.copyFailed") : ""}
      </p>
    </section>
  );
}
