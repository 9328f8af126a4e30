export { GatewayConfigError, loadGatewayConfig, parseGatewayConfig } from "./config";
export { GatewayError } from "./errors";
export { Gateway } from "./gateway";
export { PRICE_CATALOG, unpricedCandidates } from "./pricing";
export * from "./types";
