"use client";

import { useI18n } from "@/components/i18n";
import { CopyOncePanel } from "./copy-once-panel";

/** A new key's secret, shown this once: the server keeps only its hash. */
export function SecretPanel(props: { name: string; secret: string; onDone: () => void }) {
  const { t } = useI18n();
  return (
    <CopyOncePanel
      testId="key-secret"
      heading="h2"
      title={t("gov.keys.secretTitle", { name: props.name })}
      lead={t("gov.keys.secretOnce")}
      value={props.secret}
      labels={{
        copy: t("gov.keys.copy"),
        copied: t("gov.keys.copied"),
        copyFailed: t("gov.keys.copyFailed"),
        done: t("gov.keys.secretDone"),
      }}
      onDone={props.onDone}
    />
  );
}
