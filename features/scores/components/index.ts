export * from "./score-configs-admin";
