import { SchemaPage } from "@/components/ui/schema-page";

export default function Page() {
  return <SchemaPage schemaKey="admin-changes" />;
}
