import "server-only";

export * from "./channel-store";
export {
  evaluateAlerts,
  evaluateBudgetRules,
  handleRunCeilingCrossing,
  type RunCeilingCrossing,
} from "./evaluate";
export { fireAlert } from "./fire";
export { type FiredAlertRow, listFiredAlerts } from "./fired";
export { installBudgetAlerts } from "./hooks";
export { type AlertOwner, alertOwnerOf, PLATFORM_CHANGE_TENANT } from "./owner";
export * from "./rule-store";
export { queueScheduleResult } from "./schedule-results";
export { listDeliveries, sendTestAlert } from "./sending";
export { alertEvaluationService } from "./service";
