import "server-only";

export { readLimitView } from "./settings";
