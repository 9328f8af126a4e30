import { AdminPageShell } from "@/components/ui/admin-page-shell";

export default function Page() {
  return <AdminPageShell title="page.turns.title" lead="page.turns.lead" />;
}
