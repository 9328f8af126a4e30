import "server-only";

export * from "./configs";
export * from "./ledger";
export * from "./quality";
export * from "./scores";
