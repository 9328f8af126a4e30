CREATE TABLE "sys_agent_audit" (
	"id" uuid PRIMARY KEY NOT NULL,
	"tenant_id" uuid NOT NULL,
	"user_id" uuid,
	"turn_id" uuid NOT NULL,
	"conversation_id" uuid,
	"seq" integer NOT NULL,
	"type" text NOT NULL,
	"payload" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sys_agent_message" (
	"seq" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "sys_agent_message_seq_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"id" uuid NOT NULL,
	"tenant_id" uuid NOT NULL,
	"session_id" uuid NOT NULL,
	"turn_id" uuid,
	"role" text NOT NULL,
	"parts" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "sys_agent_message_id_unique" UNIQUE("id")
);
--> statement-breakpoint
CREATE TABLE "sys_agent_notification" (
	"seq" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "sys_agent_notification_seq_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"tenant_id" uuid NOT NULL,
	"session_id" uuid NOT NULL,
	"type" text NOT NULL,
	"body" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sys_agent_session" (
	"id" uuid PRIMARY KEY NOT NULL,
	"tenant_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"title" text DEFAULT 'New conversation' NOT NULL,
	"model" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sys_agent_turn" (
	"id" uuid PRIMARY KEY NOT NULL,
	"tenant_id" uuid NOT NULL,
	"user_id" uuid,
	"conversation_id" uuid,
	"source" text NOT NULL,
	"requested_model" text NOT NULL,
	"served_provider" text,
	"served_adapter" text,
	"served_model" text,
	"attempts" integer DEFAULT 0 NOT NULL,
	"fallback_index" integer,
	"input_tokens" integer DEFAULT 0 NOT NULL,
	"cached_input_tokens" integer DEFAULT 0 NOT NULL,
	"cache_write_tokens" integer DEFAULT 0 NOT NULL,
	"output_tokens" integer DEFAULT 0 NOT NULL,
	"reasoning_tokens" integer DEFAULT 0 NOT NULL,
	"cost" numeric(20, 10),
	"tool_trace" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"rounds" integer DEFAULT 0 NOT NULL,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"first_token_ms" integer,
	"latency_ms" integer,
	"status" text DEFAULT 'running' NOT NULL,
	"error_class" text,
	"error_message" text
);
--> statement-breakpoint
CREATE TABLE "usage_daily" (
	"tenant_id" uuid NOT NULL,
	"day" date NOT NULL,
	"user_id" uuid NOT NULL,
	"source" text NOT NULL,
	"served_adapter" text NOT NULL,
	"served_model" text NOT NULL,
	"requests" integer DEFAULT 0 NOT NULL,
	"failures" integer DEFAULT 0 NOT NULL,
	"input_tokens" bigint DEFAULT 0 NOT NULL,
	"cached_input_tokens" bigint DEFAULT 0 NOT NULL,
	"cache_write_tokens" bigint DEFAULT 0 NOT NULL,
	"output_tokens" bigint DEFAULT 0 NOT NULL,
	"reasoning_tokens" bigint DEFAULT 0 NOT NULL,
	"cost" numeric(20, 10) DEFAULT '0' NOT NULL,
	"latency_ms_total" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "usage_daily_tenant_id_day_user_id_source_served_adapter_served_model_pk" PRIMARY KEY("tenant_id","day","user_id","source","served_adapter","served_model")
);
--> statement-breakpoint
ALTER TABLE "tenant" ADD COLUMN "retention_days" integer DEFAULT 90 NOT NULL;--> statement-breakpoint
ALTER TABLE "sys_agent_message" ADD CONSTRAINT "sys_agent_message_session_id_sys_agent_session_id_fk" FOREIGN KEY ("session_id") REFERENCES "public"."sys_agent_session"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sys_agent_session" ADD CONSTRAINT "sys_agent_session_tenant_id_tenant_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenant"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sys_agent_session" ADD CONSTRAINT "sys_agent_session_user_id_app_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."app_user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "sys_agent_audit_turn_seq_idx" ON "sys_agent_audit" USING btree ("turn_id","seq");--> statement-breakpoint
CREATE INDEX "sys_agent_audit_tenant_created_idx" ON "sys_agent_audit" USING btree ("tenant_id","created_at");--> statement-breakpoint
CREATE INDEX "sys_agent_audit_created_idx" ON "sys_agent_audit" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "sys_agent_message_session_idx" ON "sys_agent_message" USING btree ("tenant_id","session_id","seq");--> statement-breakpoint
CREATE INDEX "sys_agent_notification_session_idx" ON "sys_agent_notification" USING btree ("tenant_id","session_id","seq");--> statement-breakpoint
CREATE INDEX "sys_agent_session_owner_idx" ON "sys_agent_session" USING btree ("tenant_id","user_id","updated_at");--> statement-breakpoint
CREATE INDEX "sys_agent_turn_tenant_started_idx" ON "sys_agent_turn" USING btree ("tenant_id","started_at");--> statement-breakpoint
CREATE INDEX "sys_agent_turn_tenant_status_idx" ON "sys_agent_turn" USING btree ("tenant_id","status","started_at");--> statement-breakpoint
CREATE INDEX "sys_agent_turn_started_idx" ON "sys_agent_turn" USING btree ("started_at");--> statement-breakpoint
CREATE INDEX "sys_agent_turn_running_idx" ON "sys_agent_turn" USING btree ("status","started_at");--> statement-breakpoint
CREATE INDEX "usage_daily_day_idx" ON "usage_daily" USING btree ("day");