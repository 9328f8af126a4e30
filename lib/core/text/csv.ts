// One CSV cell rule for every export (admin page tables, evaluation runs).

/**
 * A cell spreadsheets would run as a formula: one that starts with =, +, -, @, or with a tab or carriage return
 * (which spreadsheets skip before looking for the formula sign).
 */
export const looksLikeFormula = (text: string): boolean => /^[=+\-@\t\r]/.test(text);

/**
 * One CSV field: a formula-looking text is prefixed with ' so it stays text, and a field holding a quote, comma,
 * line break or that prefix is quoted (quotes doubled).
 */
export function csvField(text: string): string {
  const safe = looksLikeFormula(text) ? `'${text}` : text;
  return /[",\n\r]/.test(safe) || safe !== text ? `"${safe.replace(/"/g, '""')}"` : safe;
}
