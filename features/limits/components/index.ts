export * from "../client";
export * from "./limits-form";
