/**
 * Lists every model alias candidate of the gateway config the app would use (GATEWAY_CONFIG, ./gateway.config.json,
 * or the environment's defaults) with where its price comes from; exits 1 when any has none.
 */
import { GatewayConfigError, loadGatewayConfig } from "@/lib/gateway";
import { lookupPrice, PRICE_CATALOG, type PriceSource } from "@/lib/gateway/pricing";

function sourceText(source: PriceSource | undefined): string {
  if (!source) return "NONE";
  if (source.kind === "override") return `override "${source.key}"`;
  if (source.kind === "catalog") return `catalog ${source.id}`;
  return "free (offline demo model)";
}

try {
  const config = loadGatewayConfig();
  const lines = [
    `gateway config: ${config.source}`,
    `price catalog: ${PRICE_CATALOG.source}@${PRICE_CATALOG.version}, prices as of ${PRICE_CATALOG.asOf}; ${Object.keys(config.prices).length} override(s) in the config`,
  ];
  let unpriced = 0;
  for (const [alias, spec] of Object.entries(config.models)) {
    for (const { provider, model } of spec.candidates) {
      const { type, preset } = config.providers[provider]!;
      const found = lookupPrice(config.prices, { name: provider, type, preset }, model);
      if (!found) unpriced++;
      lines.push(`  ${alias}: ${provider}/${model} (${type}) → ${sourceText(found?.source)}`);
    }
  }
  lines.push(
    unpriced
      ? `${unpriced} candidate(s) without a price: add them to "prices" in the gateway config, or their calls are recorded unpriced`
      : "every candidate has a price",
  );
  process.stdout.write(`${lines.join("\n")}\n`);
  process.exitCode = unpriced ? 1 : 0;
} catch (error) {
  const message = error instanceof GatewayConfigError ? error.message : String(error);
  process.stderr.write(`prices:check: ${message}\n`);
  process.exitCode = 1;
}
