import { SchemaPage } from "@/components/ui/schema-page";
import { titleMetadata } from "@/lib/i18n/metadata";

export const generateMetadata = titleMetadata("nav.changes");

export default function Page() {
  return <SchemaPage schemaKey="admin-changes" />;
}
