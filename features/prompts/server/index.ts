export * from "./access";
export * from "./playground";
export * from "./store";
export * from "./template";
