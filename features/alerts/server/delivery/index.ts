import "server-only";

// Alert delivery: how fired alerts (features/alerts/server/fire.ts) reach people, durably.
export {
  DEFAULT_RETRY,
  type DeliverOptions,
  type DeliveryOutcome,
  type RetryPolicy,
  retryDelayMs,
} from "./deliver";
export { type DeliveryLogQuery, type DeliveryLogRow, listDeliveries } from "./log";
export { TEST_DEDUPE_PREFIX, webhookBody } from "./messages";
export { AlertSender, type AlertSenderOptions } from "./sender";
export {
  DEFAULT_ALERT_FROM,
  DELIVERY_HEADER,
  EVENT_HEADER,
  NO_SMTP_ERROR,
  SIGNATURE_HEADER,
  signAlertBody,
  type Transports,
  transportsFromEnv,
} from "./senders";
export { sendTestAlert, type TestAlertResult } from "./test-alert";
