export * from "./ask-assistant";
export * from "./open-conversation";
