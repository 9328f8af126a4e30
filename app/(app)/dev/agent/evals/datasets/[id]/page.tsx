import { DatasetPage } from "@/features/evals/components/dataset-page";
import { evalObjectPage } from "@/features/evals/components/eval-object-page";
import { titleMetadata } from "@/lib/i18n/metadata";

export const generateMetadata = titleMetadata("evals.datasetTitle");

/** One dataset of the active tenant. */
export default function Page({ params }: { params: Promise<{ id: string }> }) {
  return evalObjectPage(params, (id) => <DatasetPage id={id} />);
}
