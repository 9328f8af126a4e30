import "server-only";
import { z } from "zod";
import { type Database, getDb } from "@/db";
import { type AgentScheduleRun, clip, listRuns, MAX_RUNS_PER_SCHEDULE } from "../schedule-runs";
import { scheduleTargetInput, targetableChannels } from "../schedule-targets";
import {
  type AgentSchedule,
  createSchedule,
  deleteSchedule,
  getSchedule,
  listSchedules,
  MAX_SCHEDULE_MESSAGE,
  updateSchedule,
} from "../schedules";
import { defineTool, type Tool, ToolSet } from "../tool";

const CRON_HELP =
  'A 5-field cron expression: minute hour day-of-month month day-of-week (0-6, 0 = Sunday), e.g. "0 9 * * 1-5" = 09:00 on weekdays, "*/30 * * * *" = every 30 minutes, "0 8 1 * *" = 08:00 on the 1st of each month. At most once a minute; no seconds field.';
const TIME_ZONE_HELP =
  'IANA time zone the cron is read in, e.g. "Europe/Berlin" or "America/New_York"; default "UTC"';

/** What the model reads about a schedule: small, with times as ISO strings. */
function view(s: AgentSchedule) {
  return {
    id: s.id,
    cron: s.cron,
    timeZone: s.timeZone,
    message: s.message,
    enabled: s.enabled,
    nextRunAt: s.enabled ? (s.nextRunAt?.toISOString() ?? null) : null,
    lastRunAt: s.lastRunAt?.toISOString() ?? null,
    lastStatus: s.lastStatus,
    target: s.target ?? null,
  };
}

/** schedule_get adds what the list leaves out. */
const detail = (s: AgentSchedule) => ({ ...view(s), model: s.model, createdAt: s.createdAt.toISOString() });

// A log of many runs stays under the loop's 8,000-character cut: each answer is shown this long at most.
const LOG_RESULT_MAX = 400;
const runView = (r: AgentScheduleRun) => ({
  id: r.id,
  status: r.status,
  startedAt: r.startedAt.toISOString(),
  finishedAt: r.finishedAt?.toISOString() ?? null,
  turnId: r.turnId,
  result: r.result === null ? null : clip(r.result, LOG_RESULT_MAX),
  error: r.error,
});

const TARGET_HELP =
  'Where each run goes instead of here: {"type":"conversation","conversationId":"…"} runs it as a turn of another conversation of yours; {"type":"alert_channel","channelId":"…"} also sends each answer to an alert channel of this tenant (admins only; ids from schedule_channels).';

const notFound = (id: string) => new Error(`no schedule ${id} in this conversation (see schedule_list)`);

/**
 * Scheduled messages for the current conversation: at each cron time the scheduler sends the message as a
 * new turn of this conversation, on behalf of the user who created it.
 */
export class ClockToolSet extends ToolSet {
  readonly name = "clock";
  private readonly list: Tool[];

  constructor(database: () => Promise<Database> = getDb) {
    super();
    const create = defineTool({
      name: "schedule_create",
      needs: "conversation",
      description:
        "Schedule a message to be sent to you in this conversation at recurring times (a reminder, a daily report). Returns the schedule with its next run time.",
      category: "clock",
      keywords: ["schedule", "remind", "every", "cron"],
      parameters: z.object({
        cron: z.string().min(1).max(100).describe(CRON_HELP),
        message: z
          .string()
          .min(1)
          .max(MAX_SCHEDULE_MESSAGE)
          .describe(
            "The message to send at each run, written as the user's request, e.g. \"Summarise today's open orders\"",
          ),
        timeZone: z.string().max(64).optional().describe(TIME_ZONE_HELP),
        target: scheduleTargetInput.optional().describe(TARGET_HELP),
      }),
      execute: async ({ cron, message, timeZone, target }, ctx) => {
        const db = await database();
        const row = await createSchedule(db, {
          tenantId: ctx.tenantId,
          userId: ctx.userId,
          role: ctx.role,
          conversationId: ctx.conversationId,
          cron,
          timeZone,
          message,
          target,
        });
        return { created: true, schedule: view(row) };
      },
    });
    const list = defineTool({
      name: "schedule_list",
      needs: "conversation",
      description: "List the schedules of this conversation with their next run times.",
      category: "clock",
      keywords: ["schedules", "reminders", "scheduled"],
      parameters: z.object({}),
      execute: async (_args, ctx) => {
        const db = await database();
        const rows = await listSchedules(db, { tenantId: ctx.tenantId, conversationId: ctx.conversationId });
        return { schedules: rows.map(view) };
      },
    });
    const get = defineTool({
      name: "schedule_get",
      needs: "conversation",
      description:
        "One schedule of this conversation in full: cron, time zone, message, model, enabled, next and last run, last status, target.",
      category: "clock",
      keywords: ["schedule details", "reminder details"],
      parameters: z.object({ id: z.string().describe("The schedule's id, from schedule_list") }),
      execute: async ({ id }, ctx) => {
        const db = await database();
        const row = await getSchedule(db, { tenantId: ctx.tenantId, conversationId: ctx.conversationId, id });
        if (!row) throw notFound(id);
        return { schedule: detail(row) };
      },
    });
    const log = defineTool({
      name: "schedule_log",
      needs: "conversation",
      description:
        "The past runs of a schedule of this conversation, newest first: when, status (running, succeeded, failed, skipped), the answer (shortened) or the error.",
      category: "clock",
      keywords: ["schedule history", "schedule runs", "did the reminder run"],
      parameters: z.object({
        id: z.string().describe("The schedule's id, from schedule_list"),
        limit: z
          .number()
          .int()
          .min(1)
          .max(MAX_RUNS_PER_SCHEDULE)
          .optional()
          .describe(`How many runs, newest first (default 10, at most ${MAX_RUNS_PER_SCHEDULE})`),
      }),
      execute: async ({ id, limit }, ctx) => {
        const db = await database();
        const row = await getSchedule(db, { tenantId: ctx.tenantId, conversationId: ctx.conversationId, id });
        if (!row) throw notFound(id);
        const runs = await listRuns(db, { tenantId: ctx.tenantId, scheduleId: row.id, limit: limit ?? 10 });
        return { id: row.id, runs: runs.map(runView) };
      },
    });
    const channels = defineTool({
      name: "schedule_channels",
      needs: "conversation",
      roles: ["admin"],
      description:
        "The tenant's enabled alert channels (id, name, kind) a schedule's answers can be sent to with target alert_channel.",
      category: "clock",
      keywords: ["alert channels", "send report to slack", "send report to webhook"],
      parameters: z.object({}),
      execute: async (_args, ctx) => ({ channels: await targetableChannels(await database(), ctx.tenantId) }),
    });
    const update = defineTool({
      name: "schedule_update",
      needs: "conversation",
      description:
        "Change a schedule of this conversation (its times, message or time zone), or pause/resume it with enabled.",
      category: "clock",
      keywords: ["reschedule", "pause schedule", "resume schedule"],
      parameters: z.object({
        id: z.string().describe("The schedule's id, from schedule_list or schedule_create"),
        cron: z.string().min(1).max(100).optional().describe(CRON_HELP),
        message: z
          .string()
          .min(1)
          .max(MAX_SCHEDULE_MESSAGE)
          .optional()
          .describe("The new message to send at each run"),
        timeZone: z.string().max(64).optional().describe(TIME_ZONE_HELP),
        enabled: z.boolean().optional().describe("false pauses the schedule, true resumes it"),
        target: scheduleTargetInput.nullable().optional().describe(`${TARGET_HELP} null removes the target.`),
      }),
      execute: async ({ id, ...change }, ctx) => {
        const db = await database();
        const row = await updateSchedule(db, {
          tenantId: ctx.tenantId,
          conversationId: ctx.conversationId,
          role: ctx.role,
          id,
          ...change,
        });
        if (!row) throw notFound(id);
        return { updated: true, schedule: view(row) };
      },
    });
    const remove = defineTool({
      name: "schedule_delete",
      needs: "conversation",
      description:
        "Delete a schedule of this conversation for good (use schedule_update with enabled false to pause it).",
      category: "clock",
      keywords: ["unschedule", "cancel reminder", "delete schedule"],
      parameters: z.object({ id: z.string().describe("The schedule's id, from schedule_list") }),
      execute: async ({ id }, ctx) => {
        const db = await database();
        const deleted = await deleteSchedule(db, {
          tenantId: ctx.tenantId,
          conversationId: ctx.conversationId,
          id,
        });
        if (!deleted) throw notFound(id);
        return { deleted: true, id };
      },
    });
    this.list = [create, list, get, log, channels, update, remove];
  }

  tools(): Tool[] {
    return this.list;
  }

  override prompt(): string {
    return "With schedule_create you can schedule a message to arrive in this conversation (or, with a target, another conversation of the user's or an alert channel) at recurring times (5-field cron, at most once a minute); schedule_list, schedule_get, schedule_update and schedule_delete manage them, schedule_log shows how past runs went, and schedule_channels (admins) lists the alert channels a target may name.";
  }
}
