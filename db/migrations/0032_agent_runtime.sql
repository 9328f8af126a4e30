CREATE TABLE "agent_schedule_run" (
	"id" uuid PRIMARY KEY NOT NULL,
	"tenant_id" uuid NOT NULL,
	"schedule_id" uuid NOT NULL,
	"status" text DEFAULT 'running' NOT NULL,
	"turn_id" uuid,
	"result" text,
	"error" text,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "prompt_file" (
	"id" uuid PRIMARY KEY NOT NULL,
	"tenant_id" uuid NOT NULL,
	"prompt_version_id" uuid NOT NULL,
	"path" text NOT NULL,
	"content" text NOT NULL,
	"bytes" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "agent_schedule" ADD COLUMN "target" jsonb;--> statement-breakpoint
ALTER TABLE "prompt" ADD COLUMN "kind" text DEFAULT 'prompt' NOT NULL;--> statement-breakpoint
ALTER TABLE "tenant" ADD COLUMN "code_run_mode" text DEFAULT 'off' NOT NULL;--> statement-breakpoint
ALTER TABLE "agent_schedule_run" ADD CONSTRAINT "agent_schedule_run_tenant_id_tenant_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenant"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agent_schedule_run" ADD CONSTRAINT "agent_schedule_run_schedule_id_agent_schedule_id_fk" FOREIGN KEY ("schedule_id") REFERENCES "public"."agent_schedule"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "prompt_file" ADD CONSTRAINT "prompt_file_prompt_version_id_prompt_version_id_fk" FOREIGN KEY ("prompt_version_id") REFERENCES "public"."prompt_version"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "agent_schedule_run_schedule_idx" ON "agent_schedule_run" USING btree ("tenant_id","schedule_id","started_at");--> statement-breakpoint
CREATE UNIQUE INDEX "prompt_file_version_path_idx" ON "prompt_file" USING btree ("prompt_version_id","path");