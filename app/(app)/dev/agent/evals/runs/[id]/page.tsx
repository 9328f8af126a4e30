import { evalObjectPage } from "@/features/evals/components/eval-object-page";
import { RunPage } from "@/features/evals/components/run-page/run-page";
import { titleMetadata } from "@/lib/i18n/metadata";

export const generateMetadata = titleMetadata("evals.runTitle");

/** One evaluation run of the active tenant. */
export default function Page({ params }: { params: Promise<{ id: string }> }) {
  return evalObjectPage(params, (id) => <RunPage id={id} />);
}
