export * from "./replay";
