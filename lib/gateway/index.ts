export { GatewayConfigError, loadGatewayConfig, parseGatewayConfig } from "./config";
export { GatewayError } from "./errors";
export { Gateway } from "./gateway";
export * from "./types";
