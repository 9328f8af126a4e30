import "server-only";

export {
  evaluateAlerts,
  evaluateBudgetRules,
  handleRunCeilingCrossing,
  type RunCeilingCrossing,
} from "./evaluate";
export { fireAlert } from "./fire";
export { installBudgetAlerts } from "./hooks";
export { alertOwnerOf } from "./owner";
export { listDeliveries, sendTestAlert } from "./sending";
export { alertEvaluationService } from "./service";
export * from "./store";
