// The limits and tenant-settings routes as the browser calls them (dates arrive as strings).
import type { z } from "zod";
import { fetchJson, type Json, sendJson } from "@/lib/client/api";
import type {
  AssumedPriceView,
  assumedPriceInput,
  GovernanceSettingsAnswer,
  LimitScope,
  LimitValues,
  limitsInput,
  RunCeilingsAnswer,
  RunCeilingValues,
  runCeilingInput,
  SavedLimits,
  tenantSettingsInput,
} from "./contracts";

const SETTINGS = "/api/governance/settings";
const RUN_CEILINGS = "/api/governance/run-ceilings";

export const limitsApi = {
  settings: (signal?: AbortSignal) => fetchJson<Json<GovernanceSettingsAnswer>>(SETTINGS, signal),
  saveSettings: (input: z.input<typeof tenantSettingsInput>) =>
    sendJson<Json<GovernanceSettingsAnswer>>("PUT", SETTINGS, input),
  /** Sets the limits of the tenant, or of one key or user (`subjectId`); every value null removes them. */
  saveLimits: (scope: LimitScope, subjectId: string | undefined, values: LimitValues) =>
    sendJson<SavedLimits>("PUT", "/api/governance/limits", {
      scope,
      ...(subjectId ? { subjectId } : {}),
      ...values,
    } satisfies z.input<typeof limitsInput>),
  runCeilings: (signal?: AbortSignal) => fetchJson<RunCeilingsAnswer>(RUN_CEILINGS, signal),
  /** Sets the run ceilings of the tenant, or of one key (`subjectId`); every value null removes them. */
  saveRunCeilings: (scope: "tenant" | "key", subjectId: string | undefined, values: RunCeilingValues) =>
    sendJson<{ ceilings: RunCeilingValues | null }>("PUT", RUN_CEILINGS, {
      scope,
      ...(subjectId ? { subjectId } : {}),
      ...values,
    } satisfies z.input<typeof runCeilingInput>),
  /** Sets the price assumed for a model without one; `price: null` removes it. */
  saveAssumedPrice: (input: z.input<typeof assumedPriceInput>) =>
    sendJson<Json<{ assumedPrice: AssumedPriceView | null }>>("PUT", "/api/governance/assumed-prices", input),
};
