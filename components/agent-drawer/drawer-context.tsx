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
};

const DrawerContext = createContext<DrawerControl | null>(null);

export function useAgentDrawer(): DrawerControl {
  const control = useContext(DrawerContext);
  if (!control) throw new Error("useAgentDrawer needs an <AgentDrawerProvider> above it");
  return control;
}

const isShortcut = (e: KeyboardEvent) =>
  (e.ctrlKey || e.metaKey) && !e.altKey && (e.key === "/" || e.code === "Slash");

/** Open state shared by the top-bar button and the drawer, remembered across reloads. */
export function AgentDrawerProvider({ children }: { children: ReactNode }) {
  const [state, setState] = useState<{ open: boolean; reason: Reason }>({ open: false, reason: "restore" });
  const toggleRef = useRef<HTMLButtonElement>(null);

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

  const value = useMemo(
    () => ({ open: state.open, reason: state.reason, setOpen, toggle, toggleRef }),
    [state, setOpen, toggle],
  );
  return <DrawerContext.Provider value={value}>{children}</DrawerContext.Provider>;
}
