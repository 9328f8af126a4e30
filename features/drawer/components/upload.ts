// One file to POST /api/agent/files. XMLHttpRequest rather than fetch: only it reports upload progress. The
// browser sends the page's Origin with a same-origin POST, which is what the app's CSRF check asks for.
import type { UploadedFile } from "@/features/drawer/contracts";
import { ApiError, errorFromResponse } from "@/lib/client/api";

export const FILES_ENDPOINT = "/api/agent/files";

/**
 * Uploads `file` (multipart field `file`); resolves with the stored file, rejects with an ApiError carrying the
 * server's message (4xx: wrong type, too big, over quota), status 0 when the network failed, or an AbortError.
 */
export function uploadFile(
  file: File,
  onProgress: (fraction: number) => void,
  signal?: AbortSignal,
): Promise<UploadedFile> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("POST", FILES_ENDPOINT);
    xhr.setRequestHeader("accept", "application/json");
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable && e.total > 0) onProgress(e.loaded / e.total);
    };
    xhr.onload = () => {
      if (xhr.status >= 200 && xhr.status < 300) {
        try {
          resolve(JSON.parse(xhr.responseText) as UploadedFile);
        } catch {
          reject(new ApiError(xhr.status, "the server's answer was not JSON"));
        }
        return;
      }
      const status = xhr.status >= 200 && xhr.status <= 599 ? xhr.status : 500;
      void errorFromResponse(
        new Response(xhr.responseText || null, { status, statusText: xhr.statusText }),
      ).then(reject, reject);
    };
    xhr.onerror = () => reject(new ApiError(0, "the upload failed: no answer from the server"));
    xhr.onabort = () => reject(new DOMException("the upload was cancelled", "AbortError"));
    signal?.addEventListener("abort", () => xhr.abort(), { once: true });
    const form = new FormData();
    form.append("file", file, file.name);
    xhr.send(form);
  });
}
