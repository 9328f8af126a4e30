import { SchemaPage } from "@/components/ui/schema-page";
import { titleMetadata } from "@/lib/i18n/metadata";

export const generateMetadata = titleMetadata("nav.tools");

export default function Page() {
  return <SchemaPage schemaKey="agent-tools" />;
}
