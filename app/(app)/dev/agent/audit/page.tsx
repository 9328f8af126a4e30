import { AdminPageShell } from "@/components/ui/admin-page-shell";

export default function Page() {
  return <AdminPageShell title="page.audit.title" lead="page.audit.lead" />;
}
