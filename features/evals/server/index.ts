export * from "./access";
// What review queues use: a reviewed turn copied into a dataset, and the dataset it goes to checked.
export { appendItems } from "./datasets";
export { itemFromTurn } from "./from-turn";
export { datasetRow } from "./rows";
