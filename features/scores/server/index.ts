import "server-only";

export * from "./configs";
export * from "./scores";
