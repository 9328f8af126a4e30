import pino from "pino";

// JSON lines on stdout; LOG_LEVEL=debug for more, silent in tests unless asked for.
export const log = pino({
  level: process.env.LOG_LEVEL ?? (process.env.VITEST ? "silent" : "info"),
  base: { app: "tollgate" },
  redact: { paths: ["password", "*.password", "authorization", "*.authorization"], censor: "[masked]" },
});
