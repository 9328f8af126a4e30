import "server-only";
import { eq, isNull, type SQL } from "drizzle-orm";
import type { z } from "zod";
import type { alertChannel, alertRule } from "@/db/schema";
import { activeTenantOrThrow } from "@/lib/auth/access";
import type { UserContext } from "@/lib/auth/users";
import { AppError, forbidden } from "@/lib/core/errors/app-error";

/** Whose rules and channels: a tenant's, or (null) the platform's, the super admin's. */
export type AlertOwner = string | null;

/** The admin-change log needs a tenant: platform rows are logged under the nil UUID, which no tenant has. */
export const PLATFORM_CHANGE_TENANT = "00000000-0000-0000-0000-000000000000";

export const ownedBy = (
  column: typeof alertRule.tenantId | typeof alertChannel.tenantId,
  owner: AlertOwner,
): SQL => (owner === null ? isNull(column) : eq(column, owner));

export const invalid = (field: string, message: string) =>
  new AppError("validation_failed", message, { fields: { [field]: [message] } });

/** A zod failure of a part of the body, its paths under `prefix`. */
export function invalidPart(prefix: string, error: z.ZodError): AppError {
  const fields: Record<string, string[]> = {};
  for (const issue of error.issues) {
    const key = [prefix, ...issue.path.map(String)].join(".");
    fields[key] = [...(fields[key] ?? []), issue.message];
  }
  const [first] = Object.entries(fields);
  return new AppError("validation_failed", first ? `${first[0]}: ${first[1][0]}` : "invalid", { fields });
}

/**
 * Whose rules and channels a request reaches: `?scope=platform` the platform's (the super admin only), else the
 * active tenant's (the route's guard has made sure its user is an admin of it).
 */
export function alertOwnerOf(req: Request, auth: UserContext): AlertOwner {
  const scope = new URL(req.url).searchParams.get("scope");
  if (scope === "platform") {
    if (!auth.user.isSuperAdmin) throw forbidden("platform alerts are the super admin's");
    return null;
  }
  if (scope !== null && scope !== "tenant")
    throw new AppError("validation_failed", 'scope is "platform" or left out', {
      fields: { scope: ['"platform", or left out for the active tenant'] },
    });
  return activeTenantOrThrow(auth).id;
}
