/** Messages of the replay area (English is the source; Chinese must have every key). */
export const en = {} as const;

export const zh: Record<keyof typeof en, string> = {};
