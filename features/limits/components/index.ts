export * from "../client";
export * from "./budget-meter";
export * from "./limits-form";
