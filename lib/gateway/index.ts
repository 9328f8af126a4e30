import { type GatewayConfig, loadGatewayConfig } from "./config";
import { Gateway } from "./gateway";

export { GatewayConfigError, loadGatewayConfig, parseGatewayConfig } from "./config";
export { GatewayError } from "./errors";
export { Gateway } from "./gateway";
export * from "./types";

type Holder = { __tollgateGateway?: Gateway };
const holder = globalThis as Holder;

/** The process's gateway, built once from gateway.config.json or the environment (throws on a bad config). */
export function getGateway(): Gateway {
  holder.__tollgateGateway ??= new Gateway(loadGatewayConfig());
  return holder.__tollgateGateway;
}

/** Tests and the lean server install their own. */
export function setGateway(config: GatewayConfig | Gateway | undefined): void {
  holder.__tollgateGateway = config === undefined || config instanceof Gateway ? config : new Gateway(config);
}
