import "server-only";

// Fixed ids and times for the document's examples (UUIDv7, as the app mints them).
export const ID = {
  tenant: "0193a0c2-7d1e-7c3a-9f2b-4c5d6e7f8a01",
  user: "0193a0c2-7d1e-7c3a-9f2b-4c5d6e7f8a02",
  key: "0193a0c2-7d1e-7c3a-9f2b-4c5d6e7f8a03",
  conversation: "0193a0c2-7d1e-7c3a-9f2b-4c5d6e7f8a04",
  turn: "0193a0c2-7d1e-7c3a-9f2b-4c5d6e7f8a05",
  file: "0193a0c2-7d1e-7c3a-9f2b-4c5d6e7f8a06",
  dataset: "0193a0c2-7d1e-7c3a-9f2b-4c5d6e7f8a07",
  run: "0193a0c2-7d1e-7c3a-9f2b-4c5d6e7f8a08",
  server: "0193a0c2-7d1e-7c3a-9f2b-4c5d6e7f8a09",
  invitation: "0193a0c2-7d1e-7c3a-9f2b-4c5d6e7f8a0a",
  message: "0193a0c2-7d1e-7c3a-9f2b-4c5d6e7f8a0b",
  key2: "0193a0c2-7d1e-7c3a-9f2b-4c5d6e7f8a0c",
} as const;

export const AT = "2026-11-01T09:30:00.000Z";
export const LATER = "2026-11-08T09:30:00.000Z";
