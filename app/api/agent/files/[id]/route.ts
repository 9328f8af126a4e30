import { getDb } from "@/db";
import { isImageType } from "@/features/drawer/file-types";
import { deleteOwnFile, ownFileOrThrow } from "@/features/drawer/server/files";
import { activeTenantOrThrow, withUser } from "@/lib/auth/guards";

type Params = { id: string };

/**
 * The uploader's file, for the drawer's thumbnails and downloads: images inline under their recognised type, every
 * other file as an attachment; never sniffed by the browser. Anyone else's file is 404.
 */
export const GET = withUser<Params>(async (_req, { auth, params }) => {
  const tenant = activeTenantOrThrow(auth);
  const file = await ownFileOrThrow(await getDb(), { tenantId: tenant.id, userId: auth.user.id }, params.id);
  const image = isImageType(file.mediaType);
  return new Response(new Uint8Array(file.bytes), {
    headers: {
      "content-type":
        image || !file.mediaType.startsWith("text/") ? file.mediaType : `${file.mediaType}; charset=utf-8`,
      "content-length": String(file.bytes.byteLength),
      "content-disposition": contentDisposition(image ? "inline" : "attachment", file.name),
      "x-content-type-options": "nosniff",
      "cache-control": "private, max-age=3600",
    },
  });
});

/** Deletes the uploader's file (a chip removed before sending), freeing its share of the tenant's quota. */
export const DELETE = withUser<Params>(async (_req, { auth, params }) => {
  const tenant = activeTenantOrThrow(auth);
  await deleteOwnFile(await getDb(), { tenantId: tenant.id, userId: auth.user.id }, params.id);
  return new Response(null, { status: 204 });
});

/** RFC 6266: an ASCII fallback name, and the real one percent-encoded in UTF-8 (RFC 8187). */
function contentDisposition(kind: "inline" | "attachment", name: string): string {
  const fallback = name.replace(/[^\x20-\x7e]|["\\%]/g, "_");
  return `${kind}; filename="${fallback}"; filename*=UTF-8''${encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)}`;
}
