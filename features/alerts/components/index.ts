export * from "./alerts-admin";
