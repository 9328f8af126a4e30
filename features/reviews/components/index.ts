export * from "./queue-page";
export * from "./review-queues-admin";
export * from "./review-view";
