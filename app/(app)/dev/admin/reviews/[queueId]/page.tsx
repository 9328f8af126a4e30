import { notFound } from "next/navigation";
import { ChooseTenantNote } from "@/components/admin-kit/ui";
import { QueuePage } from "@/features/reviews/components";
import { requireTenantAdmin } from "@/lib/auth/page-guards";
import { isUuid } from "@/lib/core/schema/uuid";
import { titleMetadata } from "@/lib/i18n/metadata";
import { getTranslator } from "@/lib/i18n/server";

export const generateMetadata = titleMetadata("nav.reviews");

/** One review queue for its admins: progress, throughput, items (its routes answer 404 for another tenant's). */
export default async function ReviewQueuePage({ params }: { params: Promise<{ queueId: string }> }) {
  const auth = await requireTenantAdmin();
  const { queueId } = await params;
  if (!isUuid(queueId)) notFound();
  if (!auth.tenant) return <ChooseTenantNote message={(await getTranslator())("rv.chooseTenant")} />;
  return <QueuePage key={`${auth.tenant.id}:${queueId}`} queueId={queueId} />;
}
