export * from "./code-run-settings-form";
export * from "./sign-in-settings-form";
export * from "./web-fetch-settings-form";
