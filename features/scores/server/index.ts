import "server-only";

export * from "./scores";
