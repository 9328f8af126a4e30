import type { ReactNode } from "react";
import { AgentDrawer } from "@/components/agent-drawer/drawer";
import { AgentDrawerProvider } from "@/components/agent-drawer/drawer-context";
import { TopBar } from "@/components/ui/top-bar";
import { requireUser } from "@/lib/auth/page-guards";

export default async function SignedInLayout({ children }: { children: ReactNode }) {
  const auth = await requireUser();
  const tenantId = auth.tenant?.id ?? null;
  const scope = `${auth.user.id}:${tenantId ?? "platform"}`;
  return (
    <AgentDrawerProvider canAsk={tenantId !== null} scope={scope}>
      <TopBar auth={auth} />
      <main className="mx-auto max-w-6xl px-4 py-8">{children}</main>
      {/* The drawer's chat belongs to one user in one tenant; switching either starts it afresh. */}
      <AgentDrawer scope={scope} hasTenant={tenantId !== null} />
    </AgentDrawerProvider>
  );
}
