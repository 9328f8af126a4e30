export * from "./admin-home";
export * from "./member-home";
export * from "./review-tile";
