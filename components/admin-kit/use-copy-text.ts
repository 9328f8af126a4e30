"use client";

import { useRef, useState } from "react";

export type CopyState = "idle" | "copied" | "failed";

/**
 * Copies `text` to the clipboard. Where there is no clipboard (an insecure origin, a refused permission) it
 * selects the element `ref` is on instead, so Ctrl+C works, and says "failed".
 */
export function useCopyText<E extends HTMLElement = HTMLElement>(text: string) {
  const ref = useRef<E>(null);
  const [state, setState] = useState<CopyState>("idle");

  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setState("copied");
    } catch {
      const range = document.createRange();
      if (ref.current) range.selectNodeContents(ref.current);
      window.getSelection()?.removeAllRanges();
      window.getSelection()?.addRange(range);
      setState("failed");
    }
  };

  return { ref, state, copy };
}
