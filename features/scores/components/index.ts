export * from "./model-quality";
export * from "./quality-text";
export * from "./score-configs-admin";
