// The sending side as the rules' routes and page use it: one place to change when the delivery loop lands
// (features/alerts/server/delivery/ on the sending branch): point this export there.
import "server-only";

export { type DeliveryRow, listDeliveries, type SendTestOutcome, sendTestAlert } from "./delivery-port";
