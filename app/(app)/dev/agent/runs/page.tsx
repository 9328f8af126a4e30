import { SchemaPage } from "@/features/admin-tables/components/schema-page-server";
import { titleMetadata } from "@/lib/i18n/metadata";

export const generateMetadata = titleMetadata("nav.runs");

export default function Page() {
  return <SchemaPage schemaKey="agent-runs" />;
}
