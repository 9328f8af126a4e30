"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { useI18n } from "@/components/i18n";

type Option = { id: string; name: string };

export function TenantSwitcher(props: {
  tenants: Option[];
  activeId: string | null;
  platformOption: boolean;
}) {
  const { t } = useI18n();
  const router = useRouter();
  const [failed, setFailed] = useState(false);
  const [busy, setBusy] = useState(false);
  const active = props.tenants.find((x) => x.id === props.activeId);

  async function switchTo(value: string) {
    setBusy(true);
    setFailed(false);
    const res = await fetch("/api/session/tenant", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ tenantId: value === "" ? null : value }),
    }).catch(() => null);
    setBusy(false);
    if (!res?.ok) return setFailed(true);
    router.refresh();
  }

  if (props.tenants.length <= 1 && !props.platformOption) {
    return (
      <span data-testid="active-tenant" className="text-sm font-medium">
        {active?.name ?? "—"}
      </span>
    );
  }
  return (
    <span className="flex items-center gap-1">
      <span className="sr-only" data-testid="active-tenant">
        {active?.name ?? t("tenant.all")}
      </span>
      <select
        aria-label={t("tenant.label")}
        data-testid="tenant-switcher"
        value={props.activeId ?? ""}
        disabled={busy}
        onChange={(e) => switchTo(e.target.value)}
        className="max-w-52 rounded-md border border-slate-300 bg-white px-2 py-1 text-sm dark:border-slate-700 dark:bg-slate-900"
      >
        {props.platformOption && <option value="">{t("tenant.all")}</option>}
        {props.tenants.map((x) => (
          <option key={x.id} value={x.id}>
            {x.name}
          </option>
        ))}
      </select>
      {failed && (
        <span role="alert" className="text-xs text-red-600">
          {t("tenant.switchFailed")}
        </span>
      )}
    </span>
  );
}
