export * from "../client";
