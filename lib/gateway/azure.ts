/** The API version an azure-openai provider uses when its config names none. */
export const AZURE_DEFAULT_API_VERSION = "v1";

/** An azure-openai provider's resource endpoint without a trailing slash (https://NAME.openai.azure.com). */
export const azureEndpoint = (provider: { baseUrl?: string }) => (provider.baseUrl ?? "").replace(/\/+$/, "");
