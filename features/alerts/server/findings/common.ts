// What each kind's evaluation shares: a finding (an alert before its rule and channels are added), the rule's
// params, and time.
import "server-only";
import type { AlertRule } from "@/db/schema";
import { fromNano } from "@/lib/pipeline/money";
import { type AlertRuleKind, RULE_PARAMS, type RuleParams } from "../../contracts";
import type { AlertFiring } from "../fire";

/** What a rule raises, before its rule and channels are added. */
export type Finding = Omit<AlertFiring, "ruleId" | "channelIds" | "tenantId"> & { tenantId?: string | null };

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

export const paramsOf = <K extends AlertRuleKind>(rule: AlertRule, kind: K): RuleParams<K> =>
  RULE_PARAMS[kind].parse(rule.params) as RuleParams<K>;
export const iso = (ms: number) => new Date(ms).toISOString();
export const usdText = (nano: number) => `$${Number(fromNano(nano)).toFixed(2)}`;
