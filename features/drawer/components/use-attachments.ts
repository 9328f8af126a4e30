"use client";

import { useCallback, useEffect, useReducer, useRef } from "react";
import { MAX_ATTACHMENTS } from "@/features/drawer/contracts";
import { isAbort, sendJson, toApiError } from "@/lib/client/api";
import { filesReducer, fileUrl, isImageType, type PendingFile, precheck, roomFor } from "./attachments";
import { localKey } from "./chat-view";
import { uploadFile } from "./upload";
import { refusalMessage } from "./use-agent-chat";

/**
 * The composer's files: each is uploaded the moment it is picked, dropped or pasted, and shown as a chip with
 * its progress; a refused file keeps its chip with the server's reason and is never sent. Image chips show a
 * local preview (an object URL, released when the chip goes).
 */
export function useAttachments() {
  const [files, dispatch] = useReducer(filesReducer, []);
  const uploads = useRef(new Map<string, AbortController>());
  const previews = useRef(new Map<string, string>());
  const filesRef = useRef<PendingFile[]>([]);
  useEffect(() => {
    filesRef.current = files;
  }, [files]);

  const release = useCallback((key: string) => {
    uploads.current.get(key)?.abort();
    uploads.current.delete(key);
    const preview = previews.current.get(key);
    if (preview) URL.revokeObjectURL(preview);
    previews.current.delete(key);
  }, []);

  // Leaving (another tenant, sign-out) stops the uploads still running.
  useEffect(() => {
    const running = uploads.current;
    const shown = previews.current;
    return () => {
      for (const controller of running.values()) controller.abort();
      for (const url of shown.values()) URL.revokeObjectURL(url);
    };
  }, []);

  const add = useCallback((list: Iterable<File>) => {
    let room = roomFor(filesRef.current);
    for (const file of list) {
      const key = localKey("file");
      const base: PendingFile = {
        key,
        name: file.name || "file",
        type: file.type,
        size: file.size,
        status: "uploading",
        progress: 0,
      };
      const refused = room <= 0 ? `at most ${MAX_ATTACHMENTS} attachments on one message` : precheck(base);
      if (refused) {
        dispatch({ type: "add", file: { ...base, status: "failed", error: refused } });
        continue;
      }
      room--;
      if (isImageType(file.type)) previews.current.set(key, URL.createObjectURL(file));
      dispatch({ type: "add", file: base });
      const controller = new AbortController();
      uploads.current.set(key, controller);
      uploadFile(file, (progress) => dispatch({ type: "progress", key, progress }), controller.signal)
        .then((uploaded) => dispatch({ type: "done", key, uploaded }))
        .catch((error: unknown) => {
          if (isAbort(error) || controller.signal.aborted) return;
          dispatch({ type: "failed", key, error: refusalMessage(toApiError(error)) });
        })
        .finally(() => uploads.current.delete(key));
    }
  }, []);

  /** A chip removed before sending: its upload stops, or its stored file is deleted (freeing the tenant's quota). */
  const remove = useCallback(
    (key: string) => {
      const stored = filesRef.current.find((f) => f.key === key)?.uploaded;
      release(key);
      dispatch({ type: "remove", key });
      // Best effort: if it fails, the file still goes with retention.
      if (stored) void sendJson("DELETE", fileUrl(stored.id)).catch(() => undefined);
    },
    [release],
  );

  /** After sending: the chips go; the sent files live on in the message (read back from the server). */
  const clear = useCallback(() => {
    for (const f of filesRef.current) release(f.key);
    dispatch({ type: "clear" });
  }, [release]);

  const previewOf = useCallback((key: string) => previews.current.get(key), []);

  return { files, add, remove, clear, previewOf };
}

export type Attachments = ReturnType<typeof useAttachments>;
