import {
  type ModelPrice as CatalogPrice,
  type ConditionalPrice,
  calcPrice as catalogMatch,
  findProvider as findCatalogProvider,
  type ModelInfo,
} from "@pydantic/genai-prices";
import Big from "big.js";
import { presetOf } from "./presets";
import catalog from "./price-catalog.json";
import type { MediaUnits, ProviderType, Usage } from "./types";

/** The rates of one price class, USD per 1M tokens as decimal strings so nothing is ever a float. */
type Rates = { input: string; cachedInput?: string; cacheWrite?: string; output: string; reasoning?: string };

/**
 * A model's price. `reasoning` is set only where reasoning tokens are billed apart from the rest of the output;
 * `tiers` are dearer rates for calls whose input tokens (uncached + cached + cache write) exceed
 * `aboveInputTokens` (Anthropic's long-context prices): the highest applicable tier wins.
 */
export type ModelPrice = Rates & UnitRates & { tiers?: (Rates & { aboveInputTokens: number })[] };

/**
 * USD per unit, for models billed by what they make or hear rather than by tokens: per image (one rate, or by
 * `quality/size`, `size`, `quality`, with `default`), per second of audio, per character of text spoken.
 */
export type UnitRates = {
  perImage?: string | Record<string, string>;
  perSecond?: string;
  perCharacter?: string;
};
/** The gateway config's `prices`: overrides by `provider/model`, model name, or a prefix of the model name. */
export type PriceTable = Record<string, ModelPrice>;

/** The price catalog Tollgate ships with, and the date its prices are as of (shown to tenants). */
export const PRICE_CATALOG: { source: string; version: string; asOf: string } = {
  source: catalog.source,
  version: catalog.version,
  asOf: catalog.asOf,
};

/** What tenants are told about prices: the catalog, the date its prices are as of, and how many the config overrides. */
export type PricesInfo = { source: string; version: string; asOf: string; overrides: number };

export function pricesInfo(config: { prices: PriceTable }): PricesInfo {
  return { ...PRICE_CATALOG, overrides: Object.keys(config.prices).length };
}

/** A provider as the catalog needs it: its config name and its type (openai, anthropic, …). */
export type PricedProvider = { name: string; type: ProviderType; preset?: string };

/** Where a price came from, for `npm run prices:check`. */
export type PriceSource =
  | { kind: "override"; key: string }
  | { kind: "catalog"; id: string }
  | { kind: "free" };

const FREE: ModelPrice = Object.freeze({ input: "0", output: "0" });

/**
 * Finds the price of a served model at `at` (default now): the config's overrides first (`provider/model`,
 * then the model name, then the longest key the model name starts with), then the catalog. A provider given
 * with its type is looked up in the catalog under that vendor (openai, anthropic) or, for other types, by the
 * model id alone; the offline demo model is free. A provider given by name only is a catalog provider id when
 * one has that name, else the model id decides.
 */
export function findPrice(
  prices: PriceTable,
  provider: string | PricedProvider,
  model: string,
  at: Date = new Date(),
): ModelPrice | undefined {
  return lookupPrice(prices, provider, model, at)?.price;
}

/**
 * The price of what a candidate served: `servedModel` is the model the answer names (often a dated snapshot
 * of the candidate's). An override for either model wins over the catalog's price for either, so a price set
 * in the config for "gpt-4o-mini" also applies when the answer says "gpt-4o-mini-2024-07-18".
 */
export function findServedPrice(
  prices: PriceTable,
  provider: PricedProvider,
  servedModel: string,
  candidateModel: string,
  at: Date = new Date(),
): ModelPrice | undefined {
  const override =
    findOverride(prices, provider.name, servedModel) ?? findOverride(prices, provider.name, candidateModel);
  if (override) return prices[override];
  return (
    catalogPrice(provider, servedModel, at)?.price ??
    (candidateModel === servedModel ? undefined : catalogPrice(provider, candidateModel, at)?.price)
  );
}

/** findPrice, with where the price came from. */
export function lookupPrice(
  prices: PriceTable,
  provider: string | PricedProvider,
  model: string,
  at: Date = new Date(),
): { price: ModelPrice; source: PriceSource } | undefined {
  const name = typeof provider === "string" ? provider : provider.name;
  const override = findOverride(prices, name, model);
  if (override) return { price: prices[override]!, source: { kind: "override", key: override } };
  return catalogPrice(provider, model, at);
}

function catalogPrice(
  provider: string | PricedProvider,
  model: string,
  at: Date,
): { price: ModelPrice; source: PriceSource } | undefined {
  if (typeof provider !== "string" && provider.type === "offline")
    return { price: FREE, source: { kind: "free" } };
  const entry = catalogEntry(catalogProviderId(provider), model);
  if (!entry) return undefined;
  const price = priceAt(entry, at);
  return price ? { price, source: { kind: "catalog", id: entry.id } } : undefined;
}

function findOverride(prices: PriceTable, provider: string, model: string): string | undefined {
  // Own keys only: a served model named "constructor" has no price, rather than Object's constructor as one.
  for (const key of [`${provider}/${model}`, model]) if (Object.hasOwn(prices, key)) return key;
  let best: string | undefined;
  for (const key of Object.keys(prices)) {
    if (key.includes("/")) continue;
    if (model.startsWith(key) && (!best || key.length > best.length)) best = key;
  }
  return best;
}

/** The price catalog's provider id of each provider type that is one vendor's (Azure OpenAI is billed by Azure). */
const VENDOR: Partial<Record<ProviderType, string>> = {
  openai: "openai",
  anthropic: "anthropic",
  "azure-openai": "azure",
  bedrock: "aws",
  // The catalog prices Gemini once, under Google, for the Gemini API and Vertex AI alike.
  gemini: "google",
  vertex: "google",
};
const namedProviders = new Map<string, string | undefined>();

/** The catalog's provider id to look a model up under; undefined: match by the model id across providers. */
function catalogProviderId(provider: string | PricedProvider): string | undefined {
  if (typeof provider !== "string")
    return provider.preset ? presetOf(provider.preset)?.catalog : VENDOR[provider.type];
  if (!namedProviders.has(provider)) {
    const id = provider.toLowerCase();
    namedProviders.set(provider, findCatalogProvider({ providerId: id })?.id === id ? id : undefined);
  }
  return namedProviders.get(provider);
}

/** One catalog model, its price history turned into Tollgate's prices once. */
type CatalogEntry = { id: string; history: { when?: ConditionalPrice["constraint"]; price?: ModelPrice }[] };

// Matching walks the catalog's patterns (regexes among them): done once per provider and model, not per call.
const MAX_CACHED = 10_000;
const entries = new Map<string, CatalogEntry | null>();

function catalogEntry(providerId: string | undefined, model: string): CatalogEntry | undefined {
  const key = `${providerId ?? "*"}\n${model}`;
  let entry = entries.get(key);
  if (entry === undefined) {
    if (entries.size >= MAX_CACHED) entries.clear();
    // An empty usage: only the match (model and provider) is wanted, never the package's float total.
    const match = catalogMatch({}, model, providerId ? { providerId } : {});
    entry = match ? toEntry(match.provider.id, match.model) : null;
    entries.set(key, entry);
  }
  return entry ?? undefined;
}

function toEntry(providerId: string, model: ModelInfo): CatalogEntry {
  const id = `${providerId}/${model.id}`;
  if (!Array.isArray(model.prices)) return { id, history: [{ price: fromCatalog(model.prices) }] };
  return { id, history: model.prices.map((p) => ({ when: p.constraint, price: fromCatalog(p.prices) })) };
}

/** The price in force at `at`: the last entry whose constraint holds, as the catalog itself chooses. */
function priceAt(entry: CatalogEntry, at: Date): ModelPrice | undefined {
  const { history } = entry;
  for (let i = history.length - 1; i >= 0; i--) {
    const { when, price } = history[i]!;
    if (!when) return price;
    if (when.type === "start_date" && at >= new Date(when.start_date)) return price;
    if (when.type === "time_of_date" && withinTimeOfDay(at, when.start_time, when.end_time)) return price;
  }
  return history[0]?.price;
}

function withinTimeOfDay(at: Date, start: string, end: string): boolean {
  const now = at.getUTCHours() * 3600 + at.getUTCMinutes() * 60 + at.getUTCSeconds();
  const from = secondsOfDay(start);
  const to = secondsOfDay(end);
  if (from === undefined || to === undefined) return false;
  return to < from ? now >= from || now < to : now >= from && now < to;
}

/** "HH:MM:SS" with `Z` or a `±HH:MM` offset, as seconds after midnight UTC. */
function secondsOfDay(time: string): number | undefined {
  const m = /^(\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(Z|([+-])(\d{2}):(\d{2}))$/.exec(time);
  if (!m) return undefined;
  const offset = m[4] === "Z" ? 0 : (m[5] === "+" ? 1 : -1) * (Number(m[6]) * 3600 + Number(m[7]) * 60);
  return (Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3]) - offset + 86_400) % 86_400;
}

type CatalogRate = CatalogPrice[string];
const CLASSES = {
  input: "input_mtok",
  cachedInput: "cache_read_mtok",
  cacheWrite: "cache_write_mtok",
  output: "output_mtok",
  reasoning: "output_reasoning_mtok",
} as const;

/**
 * The catalog's rates as decimal strings (a JSON number's String() is its shortest decimal form). A model
 * without an input rate is priced by something else (requests, images): unpriced here. No output rate
 * (embeddings) means output is free.
 */
function fromCatalog(prices: CatalogPrice): ModelPrice | undefined {
  if (prices.input_mtok === undefined) {
    // Whisper is priced per hour of audio: per second here, exactly.
    const hours = (prices as { audio_hours?: unknown }).audio_hours;
    return typeof hours === "number"
      ? { input: "0", output: "0", perSecond: new Big(String(hours)).div(3600).toFixed() }
      : undefined;
  }
  const starts = new Set<number>();
  for (const key of Object.values(CLASSES)) {
    const rate = prices[key];
    if (typeof rate === "object") for (const tier of rate.tiers) starts.add(tier.start);
  }
  const base = ratesAt(prices, -1);
  const tiers = [...starts]
    .sort((a, b) => a - b)
    .map((start) => ({ aboveInputTokens: start, ...ratesAt(prices, start) }));
  return tiers.length ? { ...base, tiers } : base;
}

/** Each price class's rate in the tier that starts at `start` (-1: the base rates). */
function ratesAt(prices: CatalogPrice, start: number): Rates {
  const rate = (value: CatalogRate): string | undefined => {
    if (value === undefined) return undefined;
    if (typeof value === "number") return String(value);
    let chosen = value.base;
    for (const tier of value.tiers) if (tier.start <= start) chosen = tier.price;
    return String(chosen);
  };
  const rates: Rates = { input: rate(prices[CLASSES.input])!, output: rate(prices[CLASSES.output]) ?? "0" };
  const cachedInput = rate(prices[CLASSES.cachedInput]);
  const cacheWrite = rate(prices[CLASSES.cacheWrite]);
  const reasoning = rate(prices[CLASSES.reasoning]);
  if (cachedInput !== undefined) rates.cachedInput = cachedInput;
  if (cacheWrite !== undefined) rates.cacheWrite = cacheWrite;
  if (reasoning !== undefined) rates.reasoning = reasoning;
  return rates;
}

const PER_TOKEN = new Big(1_000_000);

/**
 * Exact cost in USD as a decimal string. Cached input and cache writes fall back to the input price when the
 * price has no separate rate for them (the provider then bills them as input). Output tokens include the
 * reasoning tokens (OpenAI's completion_tokens and Anthropic's output_tokens both count them): they are
 * priced at the reasoning rate only when there is one, and then taken out of the output, never counted twice.
 */
export function costOf(usage: Usage, price: ModelPrice): string {
  const rates = tierFor(price, usage.inputTokens + usage.cachedInputTokens + usage.cacheWriteTokens);
  const reasoning = rates.reasoning === undefined ? 0 : Math.min(usage.reasoningTokens, usage.outputTokens);
  let total = new Big(usage.inputTokens)
    .times(rates.input)
    .plus(new Big(usage.cachedInputTokens).times(rates.cachedInput ?? rates.input))
    .plus(new Big(usage.cacheWriteTokens).times(rates.cacheWrite ?? rates.input))
    .plus(new Big(usage.outputTokens - reasoning).times(rates.output));
  if (reasoning) total = total.plus(new Big(reasoning).times(rates.reasoning!));
  return total.div(PER_TOKEN).toFixed();
}

/**
 * The rate of one image at a size and quality: the exact `quality/size` key, else `size`, else `quality`, else
 * `default`; a size or quality not in the table (or "auto", or unset) is charged the dearest rate among the
 * `quality/size` keys that agree with what is known (else the dearest of all), the worst case.
 */
export function imageRate(price: ModelPrice, size?: string, quality?: string): string | undefined {
  const rates = price.perImage;
  if (rates === undefined || typeof rates === "string") return rates;
  for (const key of [quality && size ? `${quality}/${size}` : undefined, size, quality, "default"])
    if (key && Object.hasOwn(rates, key)) return rates[key];
  // Only one of the two known (or neither): the dearest rate among the keys that agree with what is known.
  const agrees = (key: string) => {
    const [q, s] = key.includes("/") ? key.split("/") : [undefined, undefined];
    return (!size || size === "auto" || s === size) && (!quality || quality === "auto" || q === quality);
  };
  const dearestOf = (keys: string[]) =>
    keys.reduce<string | undefined>((d, k) => (!d || new Big(rates[k]!).gt(d) ? rates[k] : d), undefined);
  return dearestOf(Object.keys(rates).filter(agrees)) ?? dearestOf(Object.keys(rates));
}

/**
 * Exact cost of a call's media units at the price's unit rates, or null when a unit it used has no rate there
 * (or it used none that could be counted, such as a transcription whose length the answer did not say).
 */
export function unitCostOf(units: MediaUnits, price: ModelPrice): string | null {
  let total = new Big(0);
  let counted = false;
  if (units.images !== undefined) {
    const rate = imageRate(price, units.imageSize, units.imageQuality);
    if (rate === undefined) return null;
    total = total.plus(new Big(units.images).times(rate));
    counted = true;
  }
  if (units.seconds !== undefined) {
    if (price.perSecond === undefined) return null;
    total = total.plus(new Big(units.seconds).times(price.perSecond));
    counted = true;
  }
  if (units.characters !== undefined) {
    if (price.perCharacter === undefined) return null;
    total = total.plus(new Big(units.characters).times(price.perCharacter));
    counted = true;
  }
  return counted ? total.toFixed() : null;
}

/**
 * The cost of an images or audio call: by its units where the price has their rates (never also by its tokens,
 * which would count it twice), else by the tokens the answer reported (gpt-image-1, gpt-4o-transcribe), else
 * unknown (null).
 */
export function mediaCostOf(usage: Usage, units: MediaUnits, price: ModelPrice): string | null {
  const byUnits = unitCostOf(units, price);
  if (byUnits !== null) return byUnits;
  const tokens = usage.inputTokens + usage.cachedInputTokens + usage.cacheWriteTokens + usage.outputTokens;
  return tokens > 0 ? costOf(usage, price) : null;
}

/** The rates for a call with `inputTokens` of input: the highest tier it exceeds, else the base rates. */
function tierFor(price: ModelPrice, inputTokens: number): Rates {
  let chosen: Rates = price;
  let above = -1;
  for (const tier of price.tiers ?? []) {
    if (inputTokens > tier.aboveInputTokens && tier.aboveInputTokens > above) {
      chosen = tier;
      above = tier.aboveInputTokens;
    }
  }
  return chosen;
}

/** Adds decimal strings exactly (for summing the cost of several round trips). */
export function addCost(a: string | null, b: string | null): string | null {
  // One unpriced round trip makes the total unknown: a partial sum would understate the cost.
  if (a === null || b === null) return null;
  return new Big(a).plus(b).toFixed();
}

/** The config's shape that unpricedCandidates reads. */
type PricedConfig = {
  providers: Record<string, { type: ProviderType }>;
  models: Record<string, { candidates: { provider: string; model: string }[] }>;
  prices: PriceTable;
};

/** Every alias candidate that neither an override nor the catalog prices (the offline model is free). */
export function unpricedCandidates(
  config: PricedConfig,
): { alias: string; provider: string; model: string }[] {
  const unpriced: { alias: string; provider: string; model: string }[] = [];
  for (const [alias, spec] of Object.entries(config.models)) {
    for (const { provider, model } of spec.candidates) {
      const type = Object.hasOwn(config.providers, provider) ? config.providers[provider]!.type : undefined;
      if (!lookupPrice(config.prices, type ? { name: provider, type } : provider, model)) {
        unpriced.push({ alias, provider, model });
      }
    }
  }
  return unpriced;
}
