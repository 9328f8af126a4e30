"use client";

import { type FormEvent, useId, useState } from "react";
import { toGovernanceError } from "@/components/governance/api";
import { ErrorNote, otherMessages, PRIMARY, Section } from "@/components/governance/ui";
import { useI18n } from "@/components/i18n";
import { adminApi, type Tenant } from "./api";
import { DoneNote, TextField } from "./form";

/** Creates a tenant (super admin); the slug is made from the name when left empty. */
export function CreateTenantForm({ onCreated }: { onCreated: (tenant: Tenant) => void }) {
  const { t } = useI18n();
  const id = useId();
  const [name, setName] = useState("");
  const [slug, setSlug] = useState("");
  const [fields, setFields] = useState<Record<string, string[]>>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [created, setCreated] = useState<Tenant | null>(null);
  const [saving, setSaving] = useState(false);

  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    setSaving(true);
    setFields({});
    setFormError(null);
    setCreated(null);
    try {
      const { tenant } = await adminApi.createTenant({ name, ...(slug.trim() ? { slug } : {}) });
      setName("");
      setSlug("");
      setCreated(tenant);
      onCreated(tenant);
    } catch (error) {
      const err = toGovernanceError(error);
      setFields(err.fields);
      const rest = otherMessages(err.fields, ["name", "slug"]);
      if (!err.fields.name && !err.fields.slug) setFormError([err.message, ...rest].join(" "));
      else if (rest.length) setFormError(rest.join(" "));
    } finally {
      setSaving(false);
    }
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
