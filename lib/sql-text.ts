/** A LIKE/ILIKE pattern matching `text` anywhere, with its own %, _ and \ taken literally. */
export const likeContains = (text: string) => `%${text.replace(/[%_\\]/g, "\\$&")}%`;
