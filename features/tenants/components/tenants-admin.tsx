"use client";

import { useState } from "react";
import { SchemaPageClient } from "@/features/admin-tables/components";
import type { PageSchema } from "@/features/admin-tables/contracts";
import { CreateTenantForm } from "./create-tenant-form";

/** The super admin's tenants screen: create one, then every tenant with rename, disable and enable. */
export function TenantsAdmin({ tenantsPage, viewerId }: { tenantsPage: PageSchema; viewerId: string }) {
  const [refresh, setRefresh] = useState(0);
  return (
    <div className="space-y-8">
      <CreateTenantForm onCreated={() => setRefresh((n) => n + 1)} />
      <SchemaPageClient
        schema={tenantsPage}
        superAdmin={false}
        viewerId={viewerId}
        embedded
        refresh={refresh}
      />
    </div>
  );
}
