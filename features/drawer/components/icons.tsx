// Small line icons for chips and the composer (SVG: no icon font, nothing a missing emoji font can break).

export const ICONS = {
  paperclip: "M15.5 9.5 10 15a3.5 3.5 0 0 1-5-5l6-6a2.3 2.3 0 0 1 3.3 3.3l-6 6a1.2 1.2 0 0 1-1.7-1.7L12 6",
  file: "M11.5 2.5H6A1.5 1.5 0 0 0 4.5 4v12A1.5 1.5 0 0 0 6 17.5h8a1.5 1.5 0 0 0 1.5-1.5V6.5l-4-4Zm0 0v4h4",
  warning: "M10 3 2.5 16.5h15L10 3Zm0 5v4m0 2.5v.01",
  turn: "M3 5h14M3 10h14M3 15h9",
  audit: "M6 3.5h8M6 10h8M6 16.5h8M3 3.5h.01M3 10h.01M3 16.5h.01",
  prompt: "M12.5 4.5l3 3M4 16l1-4 8.5-8.5a1.4 1.4 0 0 1 2 0l1 1a1.4 1.4 0 0 1 0 2L8 15l-4 1Z",
  eval: "m4 10.5 4 4 8-9",
  order: "M3.5 6.5 10 3l6.5 3.5v7L10 17l-6.5-3.5v-7Zm0 0L10 10l6.5-3.5M10 10v7",
  sparkle: "M10 2.5v4m0 7v4M2.5 10h4m7 0h4M5 5l2 2m6 6 2 2m0-10-2 2m-6 6-2 2",
} as const;

export function Icon({ name, className = "h-3.5 w-3.5" }: { name: keyof typeof ICONS; className?: string }) {
  return (
    <svg
      aria-hidden="true"
      viewBox="0 0 20 20"
      fill="none"
      stroke="currentColor"
      strokeWidth="1.6"
      className={`shrink-0 ${className}`}
    >
      <path d={ICONS[name]} strokeLinecap="round" strokeLinejoin="round" />
    </svg>
  );
}
