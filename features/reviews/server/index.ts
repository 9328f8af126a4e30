// What routes and the worker use of review queues: access, queues, filling, claims, stats.
import "server-only";

export * from "./claims";
export * from "./fill";
export * from "./queues";
export * from "./service";
export * from "./stats";
