import type { ReactNode } from "react";
import { TopBar } from "@/components/ui/top-bar";
import { AgentDrawer } from "@/features/drawer/components/drawer";
import { AgentDrawerProvider } from "@/features/drawer/components/drawer-context";
import { AgentDrawerToggle } from "@/features/drawer/components/drawer-toggle";
import { requireUser } from "@/lib/auth/page-guards";

export default async function SignedInLayout({ children }: { children: ReactNode }) {
  const auth = await requireUser();
  const tenantId = auth.tenant?.id ?? null;
  const scope = `${auth.user.id}:${tenantId ?? "platform"}`;
  return (
    <AgentDrawerProvider canAsk={tenantId !== null} scope={scope}>
      <TopBar auth={auth} drawerToggle={<AgentDrawerToggle />} />
      <main className="mx-auto max-w-6xl px-4 py-8">{children}</main>
      {/* The drawer's chat belongs to one user in one tenant; switching either starts it afresh. */}
      <AgentDrawer scope={scope} hasTenant={tenantId !== null} />
    </AgentDrawerProvider>
  );
}
