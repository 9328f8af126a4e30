import { SchemaPage } from "@/features/admin-tables/components/schema-page-server";
import { VersionCompare } from "@/features/prompts/components/version-compare";
import { ModelQuality } from "@/features/scores/components";
import { currentUser } from "@/lib/auth/guards";
import { pricesInfo } from "@/lib/gateway";
import { titleMetadata } from "@/lib/i18n/metadata";
import { getTranslator } from "@/lib/i18n/server";
import { container } from "@/server/container";

export const generateMetadata = titleMetadata("nav.cost");

export default async function Page() {
  const t = await getTranslator();
  // Prompts belong to a tenant: the platform-wide view has no versions to compare.
  const auth = await currentUser();
  const prices = pricesInfo(container().gateway.config);
  const note = t("cost.pricesAsOf", { ...prices, overrides: String(prices.overrides) });
  return (
    <>
      <SchemaPage schemaKey="agent-cost" note={note} />
      {auth?.tenant && (
        <div className="mt-8 space-y-8">
          <VersionCompare />
          <ModelQuality />
        </div>
      )}
    </>
  );
}
