import type { ReactNode } from "react";
import { TopBar } from "@/components/ui/top-bar";
import { requireUser } from "@/lib/auth/page-guards";

export default async function SignedInLayout({ children }: { children: ReactNode }) {
  const auth = await requireUser();
  return (
    <>
      <TopBar auth={auth} />
      <main className="mx-auto max-w-6xl px-4 py-8">{children}</main>
    </>
  );
}
