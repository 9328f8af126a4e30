// The alerts routes as the browser calls them; `platform` reaches the super admin's platform rules and channels.
import type { z } from "zod";
import { fetchJson, sendJson } from "@/lib/client/api";
import type {
  AlertChannelView,
  AlertRuleView,
  alertChannelInput,
  alertChannelPatch,
  alertRuleInput,
  alertRulePatch,
  DeliveryView,
  SendTestResult,
} from "./contracts";

const scoped = (path: string, platform: boolean) => (platform ? `${path}?scope=platform` : path);
const one = (path: string, id: string, platform: boolean, tail = "") =>
  scoped(`${path}/${encodeURIComponent(id)}${tail}`, platform);

export function alertsApi(platform: boolean) {
  return {
    rules: (signal?: AbortSignal) =>
      fetchJson<{ rules: AlertRuleView[] }>(scoped("/api/alerts/rules", platform), signal),
    createRule: (input: z.input<typeof alertRuleInput>) =>
      sendJson<{ rule: AlertRuleView }>("POST", scoped("/api/alerts/rules", platform), input),
    updateRule: (id: string, patch: z.input<typeof alertRulePatch>) =>
      sendJson<{ rule: AlertRuleView }>("PATCH", one("/api/alerts/rules", id, platform), patch),
    deleteRule: (id: string) => sendJson<void>("DELETE", one("/api/alerts/rules", id, platform)),
    channels: (signal?: AbortSignal) =>
      fetchJson<{ channels: AlertChannelView[] }>(scoped("/api/alerts/channels", platform), signal),
    createChannel: (input: z.input<typeof alertChannelInput>) =>
      sendJson<{ channel: AlertChannelView }>("POST", scoped("/api/alerts/channels", platform), input),
    updateChannel: (id: string, patch: z.input<typeof alertChannelPatch>) =>
      sendJson<{ channel: AlertChannelView }>("PATCH", one("/api/alerts/channels", id, platform), patch),
    deleteChannel: (id: string) => sendJson<void>("DELETE", one("/api/alerts/channels", id, platform)),
    sendTest: (id: string) =>
      sendJson<SendTestResult>("POST", one("/api/alerts/channels", id, platform, "/test")),
    deliveries: (signal?: AbortSignal) =>
      fetchJson<{ deliveries: DeliveryView[] }>(
        platform ? "/api/alerts/deliveries?scope=platform&limit=50" : "/api/alerts/deliveries?limit=50",
        signal,
      ),
  };
}
export type AlertsApi = ReturnType<typeof alertsApi>;
