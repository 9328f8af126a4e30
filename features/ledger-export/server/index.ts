export * from "./export";
