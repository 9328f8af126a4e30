ALTER TABLE "sys_agent_message" ADD COLUMN "superseded_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "sys_agent_message" ADD COLUMN "superseded_by" uuid;