// How the section writes its figures.
export const f = (n: number, d = 3) => (Number.isFinite(n) ? n.toFixed(d) : "n/a");
export const int = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString("en-US") : "n/a");
export const verdict = (pass: boolean) => (pass ? "pass" : "**MISS**");
export const met = (pass: boolean) => (pass ? "met" : "**not met**");
