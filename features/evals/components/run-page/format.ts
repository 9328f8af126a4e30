// The run page's table cells and number formats.
import { formatDuration } from "@/features/admin-tables/components";

export const HEAD_CELL = "px-3 py-2 font-medium whitespace-nowrap";
export const NUMBER_CELL = "px-3 py-2 tabular-nums whitespace-nowrap";

export const formatRate = (rate: number | null) => (rate === null ? "—" : `${Math.round(rate * 1000) / 10}%`);
export const formatScore = (s: number | null) => (s === null ? "—" : s.toFixed(2));
export const formatLatency = (v: number | null) => (v === null ? "—" : formatDuration(v));
