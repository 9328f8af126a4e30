import { AdminPageShell } from "@/components/ui/admin-page-shell";

export default function Page() {
  return <AdminPageShell title="page.cost.title" lead="page.cost.lead" />;
}
