import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { Ajv } from "ajv";
import { describeSchemaErrors } from "@/lib/core/schema/json-schema";
import gatewaySchema from "@/schemas/gateway.schema.json";
import { readServiceAccountKey, type ServiceAccountKey } from "./native/google-auth";
import { type PresetName, presetOf } from "./presets";
import type { PriceTable } from "./pricing";
import type { ProviderType } from "./types";

/** The environment as a plain map (process.env, or a test's own). */
export type Env = Record<string, string | undefined>;

export type ProviderConfig = {
  type: ProviderType;
  /** openai-compatible: a known service (lib/gateway/presets.json) whose base URL and key variable are defaults. */
  preset?: PresetName;
  baseUrl?: string;
  apiKeyEnv?: string;
  /** Several credentials for the same service (instead of apiKeyEnv): rotated per call, each cooled down alone. */
  apiKeyEnvs?: string[];
  supportsTools?: boolean;
  /** Takes images in user messages: true by default for openai, anthropic and offline; openai-compatible only when set. */
  supportsVision?: boolean;
  chunkDelayMs?: number;
  /** azure-openai: "v1" (the default) or a dated API version such as "2024-10-21". */
  apiVersion?: string;
  /** bedrock: the AWS region (default AWS_REGION, else AWS_DEFAULT_REGION). */
  region?: string;
  /** bedrock: a profile of the shared AWS config and credentials files. */
  profile?: string;
  /** bedrock: an access key from these environment variables instead of AWS's standard credential chain. */
  aws?: { accessKeyIdEnv: string; secretAccessKeyEnv: string; sessionTokenEnv?: string };
  /** vertex: the Google Cloud project, and the location (a region such as us-central1, or "global"). */
  project?: string;
  location?: string;
  /** vertex: a service account's JSON key file (default: the file GOOGLE_APPLICATION_CREDENTIALS names). */
  credentialsFile?: string;
  /** azure-openai: a Microsoft Entra ID application's client credentials (environment variable names). */
  entra?: {
    tenantIdEnv: string;
    clientIdEnv: string;
    clientSecretEnv: string;
    authorityHost?: string;
    scope?: string;
  };
};
/** Client credentials read from the environment, for a token from Microsoft Entra ID. */
export type EntraCredentials = {
  tenantId: string;
  clientId: string;
  clientSecret: string;
  authorityHost: string;
  scope: string;
};
export const ENTRA_AUTHORITY_HOST = "https://login.microsoftonline.com";
export const AZURE_OPENAI_SCOPE = "https://cognitiveservices.azure.com/.default";
/** How an alias picks the candidate to try first; the others follow in the order listed, as fallbacks. */
export type RoutingStrategy = "fallback" | "weighted" | "least-latency" | "least-cost" | "usage-based";

export type Candidate = {
  provider: string;
  model: string;
  /** `weighted` aliases: this candidate's share (default 1). */
  weight?: number;
  /** `usage-based` aliases: the deployment's limits per minute, as its provider sets them. */
  rpm?: number;
  tpm?: number;
  /** Set by the router, never in a config: which of the provider's `apiKeys` this try uses. */
  credential?: number;
};
export type AliasConfig = {
  label?: string;
  /** How the first candidate to try is chosen (default `fallback`: the first listed); the rest are fallbacks. */
  strategy?: RoutingStrategy;
  /** /v1: leave out what a candidate's format cannot carry, instead of refusing the call. */
  dropUnsupported?: boolean;
  /** /v1: refuse the hints a candidate's format has no equivalent for, instead of dropping them. */
  strict?: boolean;
  candidates: Candidate[];
};

export type GatewayConfigFile = {
  providers: Record<string, ProviderConfig>;
  models: Record<string, AliasConfig>;
  defaultModel?: string;
  timeouts?: Partial<Timeouts>;
  retry?: Partial<RetryPolicy>;
  cooldown?: Partial<CooldownPolicy>;
  prices?: PriceTable;
};

export type Timeouts = { connectMs: number; firstTokenMs: number; totalMs: number };
export type RetryPolicy = {
  maxRetries: number;
  baseDelayMs: number;
  maxDelayMs: number;
  maxRetryAfterMs: number;
};
export type CooldownPolicy = {
  consecutiveFailures: number;
  failureRate: number;
  minCallsForRate: number;
  windowMs: number;
  cooldownMs: number;
  /** Active health checks: probe each deployment cooling down this often (unset: off). */
  healthCheckMs?: number;
};

/** A provider with its secrets read from the environment. */
export type ResolvedProvider = Omit<ProviderConfig, "entra" | "aws"> & {
  /** bedrock: the access key its `aws` variables hold (else AWS's standard chain finds one per call). */
  awsCredentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  /** vertex: the service account's key, read from `credentialsFile` (or GOOGLE_APPLICATION_CREDENTIALS) at start. */
  serviceAccount?: ServiceAccountKey;
  apiKey?: string;
  /** Two or more keys (apiKeyEnvs): each call starts at the next, and each is cooled down on its own. */
  apiKeys?: string[];
  entra?: EntraCredentials;
};

/** The configuration the gateway runs on: validated, defaults filled in, keys read from the environment. */
export type GatewayConfig = {
  providers: Record<string, ResolvedProvider>;
  models: Record<string, AliasConfig>;
  defaultModel: string;
  timeouts: Timeouts;
  retry: RetryPolicy;
  cooldown: CooldownPolicy;
  prices: PriceTable;
  /** Where it came from: a file path, or "environment". */
  source: string;
};

/**
 * A record's own entry, never one inherited from Object.prototype: alias, provider and model names come from
 * callers, and "constructor" or "__proto__" must be unknown, not a function.
 */
export function ownEntry<T>(record: Record<string, T>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

/** A copy without a prototype, so a plain index by a caller's name cannot reach Object.prototype either. */
export function ownMap<T>(record: Record<string, T>): Record<string, T> {
  return Object.assign(Object.create(null) as Record<string, T>, record);
}

export const DEFAULT_TIMEOUTS: Timeouts = { connectMs: 10_000, firstTokenMs: 30_000, totalMs: 120_000 };
export const DEFAULT_RETRY: RetryPolicy = {
  maxRetries: 2,
  baseDelayMs: 250,
  maxDelayMs: 4_000,
  maxRetryAfterMs: 10_000,
};
export const DEFAULT_COOLDOWN: CooldownPolicy = {
  consecutiveFailures: 3,
  failureRate: 0.5,
  minCallsForRate: 4,
  windowMs: 60_000,
  cooldownMs: 30_000,
};
export const OFFLINE_ALIAS = "offline-demo";

/** A configuration the app cannot start with; the message names the file, the field and what was expected. */
export class GatewayConfigError extends Error {
  override name = "GatewayConfigError";
}

const ajv = new Ajv({ allErrors: true, strict: false });
const validateFile = ajv.compile<GatewayConfigFile>(gatewaySchema);

/**
 * Loads the gateway configuration: GATEWAY_CONFIG, else ./gateway.config.json if present, else defaults from
 * the environment (OpenAI and/or Anthropic keys, and always the offline demo model).
 */
export function loadGatewayConfig(env: Env = process.env, cwd = process.cwd()): GatewayConfig {
  const explicit = env.GATEWAY_CONFIG?.trim();
  const file = explicit ? path.resolve(cwd, explicit) : path.join(cwd, "gateway.config.json");
  if (explicit || existsSync(file)) return parseGatewayConfig(readConfigFile(file), file, env);
  return configFromEnvironment(env);
}

function readConfigFile(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new GatewayConfigError(`${file}: cannot read the gateway config (${(error as Error).message})`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new GatewayConfigError(`${file}: not valid JSON (${(error as Error).message})`);
  }
}

/** Validates a parsed config file against schemas/gateway.schema.json and its cross-references. */
export function parseGatewayConfig(raw: unknown, file: string, env: Env = process.env): GatewayConfig {
  if (!validateFile(raw)) {
    throw new GatewayConfigError(`${file}: ${describeSchemaErrors(validateFile.errors ?? [])}`);
  }
  const config = raw;
  const providers: GatewayConfig["providers"] = {};
  for (const [name, given] of Object.entries(config.providers)) {
    if (given.preset !== undefined && given.type !== "openai-compatible")
      throw new GatewayConfigError(`${file}: providers.${name}.preset is for type openai-compatible only`);
    const preset = presetOf(given.preset);
    // The preset's base URL and key variable, unless the provider names its own.
    const provider: ProviderConfig = preset
      ? {
          ...given,
          baseUrl: given.baseUrl ?? preset.baseUrl,
          // Several keys of the provider's own replace the preset's one variable.
          apiKeyEnv: given.apiKeyEnv ?? (given.apiKeyEnvs ? undefined : preset.apiKeyEnv),
        }
      : given;
    let apiKey: string | undefined;
    let apiKeys: string[] | undefined;
    if (provider.apiKeyEnvs) {
      if (provider.apiKeyEnv)
        throw new GatewayConfigError(`${file}: providers.${name}: set one of apiKeyEnv and apiKeyEnvs`);
      apiKeys = provider.apiKeyEnvs.map((variable, i) => {
        const value = env[variable]?.trim();
        if (!value)
          throw new GatewayConfigError(
            `${file}: providers.${name}.apiKeyEnvs[${i}] names ${variable}, which is not set in the environment`,
          );
        return value;
      });
      apiKey = apiKeys[0];
    } else if (provider.apiKeyEnv) {
      apiKey = env[provider.apiKeyEnv]?.trim();
      if (!apiKey) {
        throw new GatewayConfigError(
          `${file}: providers.${name}.${given.apiKeyEnv ? "apiKeyEnv" : `preset (${given.preset})`} names ${provider.apiKeyEnv}, which is not set in the environment`,
        );
      }
    }
    if (provider.type === "openai-compatible" && !provider.baseUrl) {
      throw new GatewayConfigError(
        `${file}: providers.${name}.baseUrl is required for type openai-compatible`,
      );
    }
    const where = `${file}: providers.${name}`;
    if (provider.type !== "azure-openai") {
      for (const field of ["apiVersion", "entra"] as const)
        if (provider[field] !== undefined)
          throw new GatewayConfigError(`${where}.${field} is for type azure-openai only`);
    } else if (!provider.baseUrl) {
      throw new GatewayConfigError(
        `${where}.baseUrl is required for type azure-openai: the resource's endpoint, https://NAME.openai.azure.com`,
      );
    } else if (!apiKey === !provider.entra) {
      throw new GatewayConfigError(`${where}: set one of apiKeyEnv (a key) and entra (Microsoft Entra ID)`);
    }
    let awsCredentials: ResolvedProvider["awsCredentials"];
    let region = provider.region;
    if (provider.type !== "bedrock") {
      for (const field of ["region", "profile", "aws"] as const)
        if (provider[field] !== undefined)
          throw new GatewayConfigError(`${where}.${field} is for type bedrock only`);
    } else {
      region ??= env.AWS_REGION?.trim() || env.AWS_DEFAULT_REGION?.trim() || undefined;
      if (!region)
        throw new GatewayConfigError(`${where}.region is required for type bedrock (or set AWS_REGION)`);
      if (apiKeys) throw new GatewayConfigError(`${where}.apiKeyEnvs: a bedrock provider takes one key`);
      if (provider.aws && apiKey)
        throw new GatewayConfigError(
          `${where}: set one of apiKeyEnv (a Bedrock API key) and aws (an access key)`,
        );
      if (provider.aws) awsCredentials = awsKeys(provider.aws, where, env);
    }
    const serviceAccount = googleProvider(provider, { apiKey, apiKeys, where, env });
    const { entra, aws: _aws, ...rest } = provider;
    providers[name] = {
      ...rest,
      ...(serviceAccount ? { serviceAccount } : {}),
      ...(region ? { region } : {}),
      ...(awsCredentials ? { awsCredentials } : {}),
      apiKey,
      ...(apiKeys && apiKeys.length > 1 ? { apiKeys } : {}),
      ...(entra ? { entra: entraCredentials(entra, where, env) } : {}),
    };
  }
  for (const [alias, spec] of Object.entries(config.models)) {
    spec.candidates.forEach((c, i) => {
      if (!ownEntry(providers, c.provider)) {
        throw new GatewayConfigError(
          `${file}: models.${alias}.candidates[${i}].provider is "${c.provider}", expected one of: ${Object.keys(providers).join(", ")}`,
        );
      }
    });
  }
  const defaultModel = config.defaultModel ?? Object.keys(config.models)[0]!;
  if (!ownEntry(config.models, defaultModel)) {
    throw new GatewayConfigError(
      `${file}: defaultModel is "${defaultModel}", expected one of: ${Object.keys(config.models).join(", ")}`,
    );
  }
  return {
    providers,
    models: config.models,
    defaultModel,
    timeouts: { ...DEFAULT_TIMEOUTS, ...config.timeouts },
    retry: { ...DEFAULT_RETRY, ...config.retry },
    cooldown: { ...DEFAULT_COOLDOWN, ...config.cooldown },
    prices: config.prices ?? {},
    source: file,
  };
}

/**
 * Checks a gemini or vertex provider (and that no other type sets vertex's fields); reads a vertex provider's
 * service-account key, so a missing or wrong file stops the start, not the first call.
 */
function googleProvider(
  provider: ProviderConfig,
  { apiKey, apiKeys, where, env }: { apiKey?: string; apiKeys?: string[]; where: string; env: Env },
): ServiceAccountKey | undefined {
  if (provider.type !== "vertex") {
    for (const field of ["project", "location", "credentialsFile"] as const)
      if (provider[field] !== undefined)
        throw new GatewayConfigError(`${where}.${field} is for type vertex only`);
  }
  if (provider.type === "gemini") {
    if (apiKeys)
      throw new GatewayConfigError(`${where}.apiKeyEnvs: a gemini provider takes one key (apiKeyEnv)`);
    if (!apiKey)
      throw new GatewayConfigError(
        `${where}.apiKeyEnv is required for type gemini: the variable holding the Gemini API key`,
      );
    return undefined;
  }
  if (provider.type !== "vertex") return undefined;
  if (apiKey || apiKeys)
    throw new GatewayConfigError(
      `${where}.${apiKeys ? "apiKeyEnvs" : "apiKeyEnv"} is not for type vertex: it signs in with a service account (credentialsFile)`,
    );
  if (!provider.project) throw new GatewayConfigError(`${where}.project is required for type vertex`);
  if (!provider.location)
    throw new GatewayConfigError(
      `${where}.location is required for type vertex: a region such as us-central1, or global`,
    );
  const file = provider.credentialsFile ?? env.GOOGLE_APPLICATION_CREDENTIALS?.trim();
  if (!file)
    throw new GatewayConfigError(
      `${where}.credentialsFile is required for type vertex (or set GOOGLE_APPLICATION_CREDENTIALS): a service account's JSON key file`,
    );
  try {
    return readServiceAccountKey(path.resolve(file));
  } catch (error) {
    const field = provider.credentialsFile
      ? "credentialsFile"
      : "credentialsFile (GOOGLE_APPLICATION_CREDENTIALS)";
    throw new GatewayConfigError(`${where}.${field}: ${(error as Error).message}`);
  }
}

function awsKeys(
  aws: NonNullable<ProviderConfig["aws"]>,
  where: string,
  env: Env,
): NonNullable<ResolvedProvider["awsCredentials"]> {
  const read = (field: "accessKeyIdEnv" | "secretAccessKeyEnv" | "sessionTokenEnv") => {
    const variable = aws[field];
    const value = variable ? env[variable]?.trim() : undefined;
    if (variable && !value)
      throw new GatewayConfigError(
        `${where}.aws.${field} names ${variable}, which is not set in the environment`,
      );
    return value;
  };
  const sessionToken = read("sessionTokenEnv");
  return {
    accessKeyId: read("accessKeyIdEnv")!,
    secretAccessKey: read("secretAccessKeyEnv")!,
    ...(sessionToken ? { sessionToken } : {}),
  };
}

function entraCredentials(
  entra: NonNullable<ProviderConfig["entra"]>,
  where: string,
  env: Env,
): EntraCredentials {
  const read = (field: "tenantIdEnv" | "clientIdEnv" | "clientSecretEnv") => {
    const value = env[entra[field]]?.trim();
    if (!value)
      throw new GatewayConfigError(
        `${where}.entra.${field} names ${entra[field]}, which is not set in the environment`,
      );
    return value;
  };
  return {
    tenantId: read("tenantIdEnv"),
    clientId: read("clientIdEnv"),
    clientSecret: read("clientSecretEnv"),
    authorityHost: entra.authorityHost ?? env.AZURE_AUTHORITY_HOST?.trim() ?? ENTRA_AUTHORITY_HOST,
    scope: entra.scope ?? AZURE_OPENAI_SCOPE,
  };
}

/** No config file: every provider with a key in the environment, and the offline demo model (the default without keys). */
export function configFromEnvironment(env: Env = process.env): GatewayConfig {
  const providers: GatewayConfig["providers"] = {
    offline: { type: "offline", supportsTools: true, chunkDelayMs: Number(env.OFFLINE_CHUNK_DELAY_MS ?? 25) },
  };
  const models: Record<string, AliasConfig> = {};
  const openaiKey = env.OPENAI_API_KEY?.trim();
  const anthropicKey = env.ANTHROPIC_API_KEY?.trim();
  if (openaiKey) {
    providers.openai = {
      type: "openai",
      apiKey: openaiKey,
      baseUrl: env.OPENAI_BASE_URL?.trim() || undefined,
    };
    models["gpt-4o-mini"] = {
      label: "GPT-4o mini",
      candidates: [{ provider: "openai", model: "gpt-4o-mini" }],
    };
    models["gpt-4.1"] = { label: "GPT-4.1", candidates: [{ provider: "openai", model: "gpt-4.1" }] };
  }
  if (anthropicKey) {
    providers.anthropic = {
      type: "anthropic",
      apiKey: anthropicKey,
      baseUrl: env.ANTHROPIC_BASE_URL?.trim() || undefined,
    };
    models["claude-haiku"] = {
      label: "Claude Haiku 4.5",
      candidates: [{ provider: "anthropic", model: "claude-haiku-4-5" }],
    };
    models["claude-sonnet"] = {
      label: "Claude Sonnet 4.5",
      candidates: [{ provider: "anthropic", model: "claude-sonnet-4-5" }],
    };
  }
  if (openaiKey && anthropicKey) {
    // With both keys, the default alias falls back across vendors.
    models.default = {
      label: "Default (GPT-4o mini, falls back to Claude Haiku)",
      candidates: [
        { provider: "openai", model: "gpt-4o-mini" },
        { provider: "anthropic", model: "claude-haiku-4-5" },
      ],
    };
  }
  models[OFFLINE_ALIAS] = {
    label: "Offline demo model",
    candidates: [{ provider: "offline", model: OFFLINE_ALIAS }],
  };
  const defaultModel = models.default ? "default" : (Object.keys(models)[0] ?? OFFLINE_ALIAS);
  return {
    providers,
    models,
    defaultModel,
    timeouts: DEFAULT_TIMEOUTS,
    retry: DEFAULT_RETRY,
    cooldown: DEFAULT_COOLDOWN,
    prices: {},
    source: "environment",
  };
}

/** Whether a provider takes images: its own `supportsVision`, else true for every type but openai-compatible. */
export const providerSupportsVision = (p: Pick<ProviderConfig, "type" | "supportsVision">): boolean =>
  p.supportsVision ?? p.type !== "openai-compatible";
