import { headers } from "next/headers";
import { GovernancePage } from "@/components/admin-kit/admin-page";
import { ApiKeysAdmin } from "@/features/keys/components/api-keys-admin";
import { requireTenantAdmin } from "@/lib/auth/page-guards";
import { titleMetadata } from "@/lib/i18n/metadata";

export const generateMetadata = titleMetadata("nav.keys");

/** This server's address as the browser reached it, for the "how to call" snippet. */
async function requestOrigin(): Promise<string> {
  const h = await headers();
  const host = h.get("x-forwarded-host") ?? h.get("host") ?? "localhost:3000";
  const proto = h.get("x-forwarded-proto") ?? "http";
  return `${proto.split(",")[0]!.trim()}://${host.split(",")[0]!.trim()}`;
}

export default async function ApiKeysPage() {
  const auth = await requireTenantAdmin();
  const origin = await requestOrigin();
  return (
    <GovernancePage auth={auth} title="gov.keys.title" lead="gov.keys.lead" testId="admin-keys">
      {(tenantId) => <ApiKeysAdmin key={tenantId} origin={origin} />}
    </GovernancePage>
  );
}
