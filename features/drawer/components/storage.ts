// localStorage can throw (private mode, storage full, blocked cookies): a preference that cannot be kept is
// simply not kept.

export const STORAGE_KEYS = {
  open: "tollgate.agent.open",
  model: "tollgate.agent.model",
  /** Per user and tenant, so one browser shared by two accounts never mixes their conversations. */
  conversation: (scope: string) => `tollgate.agent.conversation.${scope}`,
};

export function readStored(key: string): string | null {
  try {
    return window.localStorage.getItem(key);
  } catch {
    return null;
  }
}

export function writeStored(key: string, value: string | null): void {
  try {
    if (value === null) window.localStorage.removeItem(key);
    else window.localStorage.setItem(key, value);
  } catch {
    // not kept; see above
  }
}
