import "server-only";

export * from "./state";
export * from "./views";
