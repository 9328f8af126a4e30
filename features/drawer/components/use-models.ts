"use client";

import { useCallback, useEffect, useState } from "react";
import { agentApi } from "./api";
import { readStored, STORAGE_KEYS, writeStored } from "./storage";
import type { ModelInfo } from "./types";

/** The gateway's model aliases and the one this browser last chose (the default when that one is gone). */
export function useModels() {
  const [models, setModels] = useState<ModelInfo[] | null>(null);
  const [selected, setSelected] = useState<string | null>(null);
  const [failed, setFailed] = useState(false);

  useEffect(() => {
    let live = true;
    agentApi
      .models()
      .then(({ models, defaultModel }) => {
        if (!live) return;
        const stored = readStored(STORAGE_KEYS.model);
        setModels(models);
        setSelected(models.some((m) => m.alias === stored) ? stored : defaultModel);
      })
      .catch(() => {
        if (live) setFailed(true);
      });
    return () => {
      live = false;
    };
  }, []);

  const choose = useCallback((alias: string) => {
    setSelected(alias);
    writeStored(STORAGE_KEYS.model, alias);
  }, []);

  const current = models?.find((m) => m.alias === selected) ?? null;
  return { models, selected, current, failed, choose };
}
