export * from "../client";
export * from "./guardrails-admin";
