export * from "./archived";
export * from "./replay";
