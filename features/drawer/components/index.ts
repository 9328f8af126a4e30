export * from "./ask-assistant";
