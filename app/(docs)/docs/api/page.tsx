import type { Metadata } from "next";
import { ApiReference } from "@/features/api-reference/components/api-reference";
import { openApiDocument } from "@/features/api-reference/server";

export const metadata: Metadata = { title: "API reference" };

/** The API reference, public like the document it renders (GET /api/openapi.json). */
export default function ApiReferencePage() {
  return <ApiReference doc={openApiDocument()} />;
}
