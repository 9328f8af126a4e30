export * from "./admin-home";
export * from "./member-home";
