"use client";

import { type FormEvent, useId, useState } from "react";
import { DoneNote, TextField } from "@/components/admin-kit/form";
import { ErrorNote, PRIMARY, Section } from "@/components/admin-kit/ui";
import { explainWithFields, useFormSubmit } from "@/components/admin-kit/use-form-submit";
import { useI18n } from "@/components/i18n";
import type { Json } from "@/lib/client/api";
import { tenantsApi } from "../client";
import type { TenantSummary } from "../contracts";

const SHOWN = ["name", "slug"];

/** Creates a tenant (super admin); the slug is made from the name when left empty. */
export function CreateTenantForm({ onCreated }: { onCreated: (tenant: Json<TenantSummary>) => void }) {
  const { t } = useI18n();
  const id = useId();
  const [name, setName] = useState("");
  const [slug, setSlug] = useState("");
  const [created, setCreated] = useState<Json<TenantSummary> | null>(null);
  const { fields, formError, saving, reset, submit } = useFormSubmit(explainWithFields(SHOWN));

  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    reset();
    setCreated(null);
    await submit(async () => {
      const { tenant } = await tenantsApi.create({ name, ...(slug.trim() ? { slug } : {}) });
      setName("");
      setSlug("");
      setCreated(tenant);
      onCreated(tenant);
    });
  };

  return (
    <Section
      title={t("admin.tenants.createTitle")}
      lead={t("admin.tenants.createLead")}
      testId="create-tenant"
    >
      <form noValidate onSubmit={onSubmit} data-testid="create-tenant-form" className="space-y-3">
        <div className="grid gap-3 sm:grid-cols-[1fr_1fr_auto] sm:items-start">
          <TextField
            id={id}
            name="name"
            label={t("admin.tenants.name")}
            value={name}
            onChange={setName}
            messages={fields.name}
            placeholder={t("admin.tenants.namePlaceholder")}
          />
          <TextField
            id={id}
            name="slug"
            label={t("admin.tenants.slug")}
            value={slug}
            onChange={setSlug}
            messages={fields.slug}
            placeholder={t("admin.tenants.slugPlaceholder")}
            hint={t("admin.tenants.slugHint")}
          />
          <button
            type="submit"
            data-testid="create-tenant-submit"
            disabled={saving}
            className={`${PRIMARY} sm:mt-5`}
          >
            {saving ? t("admin.tenants.creating") : t("admin.tenants.create")}
          </button>
        </div>
        {formError && <ErrorNote message={formError} testId="create-tenant-error" />}
        <DoneNote
          testId="create-tenant-done"
          text={created ? t("admin.tenants.created", { name: created.name, slug: created.slug }) : null}
        />
      </form>
    </Section>
  );
}
