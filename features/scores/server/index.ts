// What other features use of scores: putting and reading scores, configs, the ledger's conditions, quality.
import "server-only";

export * from "./configs";
export * from "./ledger";
export * from "./quality";
export * from "./scores";
