export * from "./archived";
export * from "./replay";
export * from "./run-replay";
