export * from "./access";
