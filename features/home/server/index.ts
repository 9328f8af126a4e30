import "server-only";

export * from "./home";
