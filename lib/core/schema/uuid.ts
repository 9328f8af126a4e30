import { AppError } from "@/lib/core/errors/app-error";

/** A UUID in its canonical text form (any version): ids from URLs are checked with it before a query sees them. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const isUuid = (text: string): boolean => UUID.test(text);

/** An id from a URL, or a 404 (not a 400: a malformed id names nothing that exists). */
export function uuidOr404(value: string): string {
  if (!isUuid(value)) throw new AppError("not_found", "not found");
  return value;
}
