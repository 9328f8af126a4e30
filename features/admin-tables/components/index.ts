export * from "./cells";
export * from "./format";
export * from "./schema-page";
