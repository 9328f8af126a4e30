// The database schema, one file per domain; `@/db/schema` and drizzle-kit (drizzle.config.ts) read it from here.
export * from "./agent-tools";
export * from "./alerts";
export * from "./archive";
export * from "./auth";
export * from "./changes";
export * from "./conversations";
export * from "./demo";
export * from "./evals";
export * from "./guardrails";
export * from "./keys";
export * from "./mcp";
export * from "./members";
export * from "./pipeline";
export * from "./prompts";
export * from "./scores";
export * from "./tenants";
export * from "./turns";
