import { getDb } from "@/db";
import { storeUpload, UPLOAD_BODY_MAX_BYTES } from "@/features/drawer/server/files";
import { activeTenantOrThrow, withUser } from "@/lib/auth/guards";
import { AppError } from "@/lib/core/errors/app-error";
import { readMultipart } from "@/lib/http/route";

/**
 * Uploads a file for the drawer (multipart/form-data, field `file`): 201 `{id, name, type, size}`, the id to send in
 * a turn's `attachments`. Images (PNG, JPEG, WebP, GIF) up to 5 MB; text, Markdown, CSV, JSON and PDF up to 10 MB.
 */
export const POST = withUser(async (req, { auth }) => {
  const tenant = activeTenantOrThrow(auth);
  const form = await readMultipart(req, UPLOAD_BODY_MAX_BYTES);
  const file = form.get("file");
  if (file === null || typeof file === "string")
    throw new AppError("bad_request", 'send the file in a form field named "file"');
  const stored = await storeUpload(
    await getDb(),
    { tenantId: tenant.id, userId: auth.user.id },
    { name: file.name, declaredType: file.type, bytes: new Uint8Array(await file.arrayBuffer()) },
  );
  return Response.json(stored, { status: 201 });
});
