import { processSlot } from "./process-state";

/**
 * Whether this process is stopping (SIGTERM/SIGINT seen): from then on new API calls are refused with 503, so the
 * calls in progress can finish and their ledger rows be written before the process exits.
 */
const state = () => processSlot("lifecycle", () => ({ draining: false }));

export const isDraining = (): boolean => state().draining;

export function startDraining(): void {
  state().draining = true;
}
