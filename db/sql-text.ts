/** A LIKE/ILIKE pattern matching `text` anywhere, with its own %, _ and \ taken literally. */
export const likeContains = (text: string) => `%${text.replace(/[%_\\]/g, "\\$&")}%`;

/** PostgreSQL text cannot hold U+0000: input carrying one is refused by its schema instead of failing the query. */
export const hasNoNul = (text: string) => !text.includes("\u0000");
export const NO_NUL = "must not contain a NUL character (\\u0000)";
