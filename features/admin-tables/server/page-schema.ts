import { forbidden, notFound } from "next/navigation";
import type { PageSchema } from "@/features/admin-tables/contracts";
import type { UserContext } from "@/lib/auth/guards";
import { AppError } from "@/lib/core/errors/app-error";
import { container } from "@/server/container";

/** A page schema the user may read (its roles checked as its data route checks them): 403 or 404 otherwise. */
export function pageSchemaFor(key: string, auth: UserContext): PageSchema {
  try {
    return container().pages.open(key, auth).page;
  } catch (error) {
    if (error instanceof AppError && error.code === "not_found") notFound();
    if (error instanceof AppError && error.code === "forbidden") forbidden();
    throw error;
  }
}
