export { GatewayConfigError, loadGatewayConfig, parseGatewayConfig } from "./config";
export { GatewayError } from "./errors";
export { Gateway } from "./gateway";
export { PRICE_CATALOG, type PricesInfo, pricesInfo, unpricedCandidates } from "./pricing";
export * from "./types";
