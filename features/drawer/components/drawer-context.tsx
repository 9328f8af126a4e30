"use client";

import {
  createContext,
  type ReactNode,
  type RefObject,
  useCallback,
  useContext,
  useEffect,
  useMemo,
  useRef,
  useState,
} from "react";
import type { ContextChip } from "@/features/drawer/contracts";
import { addChip, removeChip } from "./context-chips";
import { readStored, STORAGE_KEYS, writeStored } from "./storage";

/** "user": opened or closed just now by the person, so focus follows; "restore": reopened after a reload. */
type Reason = "user" | "restore";

type DrawerControl = {
  open: boolean;
  reason: Reason;
  setOpen: (open: boolean) => void;
  toggle: () => void;
  /** The top-bar button, where focus returns when the drawer closes. */
  toggleRef: RefObject<HTMLButtonElement | null>;
  /**
   * "Ask the assistant" about an object a page shows: opens the drawer with a removable chip for it above the
   * composer, sent as a context item with the next message. Undefined where the drawer has no tenant to ask in.
   */
  askAssistant?: (item: ContextChip) => void;
  /** The chips waiting for the next message, and whether the last one asked for was past the limit. */
  chips: ContextChip[];
  chipsFull: boolean;
  removeChip: (key: string) => void;
  clearChips: () => void;
  /** Counts the asks, so the drawer moves focus to the composer even when it was open already. */
  asks: number;
  /** Opens the drawer on one of the user's conversations (the home's list); `wanted` is the last one asked for. */
  openConversation: (id: string) => void;
  wanted: { id: string; n: number } | null;
};

const DrawerContext = createContext<DrawerControl | null>(null);

export function useAgentDrawer(): DrawerControl {
  const control = useContext(DrawerContext);
  if (!control) throw new Error("useAgentDrawer needs an <AgentDrawerProvider> above it");
  return control;
}

const isShortcut = (e: KeyboardEvent) =>
  (e.ctrlKey || e.metaKey) && !e.altKey && (e.key === "/" || e.code === "Slash");

/**
 * Open state shared by the top-bar button and the drawer, remembered across reloads; and the context chips that
 * pages add with "Ask the assistant" (`canAsk`: the user has a tenant, so the drawer can send them).
 */
export function AgentDrawerProvider({
  children,
  canAsk = false,
  scope = "",
}: {
  children: ReactNode;
  canAsk?: boolean;
  /** The user and tenant the chips belong to: another tenant's object must not ride along after a switch. */
  scope?: string;
}) {
  const [state, setState] = useState<{ open: boolean; reason: Reason }>({ open: false, reason: "restore" });
  const [context, setContext] = useState<{
    chips: ContextChip[];
    full: boolean;
    asks: number;
    scope: string;
  }>({ chips: [], full: false, asks: 0, scope });
  if (context.scope !== scope) setContext({ chips: [], full: false, asks: context.asks, scope });
  const toggleRef = useRef<HTMLButtonElement>(null);
  const [wanted, setWanted] = useState<{ id: string; n: number } | null>(null);

  // The server cannot see localStorage, so the drawer renders closed and reopens once hydrated.
  useEffect(() => {
    if (readStored(STORAGE_KEYS.open) === "1") setState({ open: true, reason: "restore" });
  }, []);

  const setOpen = useCallback((open: boolean) => {
    setState({ open, reason: "user" });
    writeStored(STORAGE_KEYS.open, open ? "1" : "0");
  }, []);

  const openRef = useRef(state.open);
  useEffect(() => {
    openRef.current = state.open;
  }, [state.open]);
  const toggle = useCallback(() => setOpen(!openRef.current), [setOpen]);

  useEffect(() => {
    const onKeyDown = (e: KeyboardEvent) => {
      if (isShortcut(e)) {
        e.preventDefault();
        toggle();
        return;
      }
      // Escape inside the drawer is handled there; here only when nothing else has focus.
      const idle = !document.activeElement || document.activeElement === document.body;
      const onToggle = document.activeElement === toggleRef.current;
      if (e.key === "Escape" && !e.defaultPrevented && openRef.current && (idle || onToggle)) setOpen(false);
    };
    window.addEventListener("keydown", onKeyDown);
    return () => window.removeEventListener("keydown", onKeyDown);
  }, [toggle, setOpen]);

  const askAssistant = useCallback(
    (item: ContextChip) => {
      setContext((c) => ({ ...c, ...addChip(c.chips, item), asks: c.asks + 1 }));
      setOpen(true);
    },
    [setOpen],
  );
  const dropChip = useCallback(
    (key: string) => setContext((c) => ({ ...c, chips: removeChip(c.chips, key), full: false })),
    [],
  );
  const clearChips = useCallback(() => setContext((c) => ({ ...c, chips: [], full: false })), []);
  const openConversation = useCallback(
    (id: string) => {
      // Counted, so asking for the same conversation again (after switching away in the drawer) opens it again.
      setWanted((w) => ({ id, n: (w?.n ?? 0) + 1 }));
      setOpen(true);
    },
    [setOpen],
  );

  const value = useMemo(
    () => ({
      open: state.open,
      reason: state.reason,
      setOpen,
      toggle,
      toggleRef,
      askAssistant: canAsk ? askAssistant : undefined,
      chips: context.chips,
      chipsFull: context.full,
      removeChip: dropChip,
      clearChips,
      asks: context.asks,
      openConversation,
      wanted,
    }),
    [state, setOpen, toggle, canAsk, askAssistant, context, dropChip, clearChips, openConversation, wanted],
  );
  return <DrawerContext.Provider value={value}>{children}</DrawerContext.Provider>;
}
