export * from "./add-to-dataset";
