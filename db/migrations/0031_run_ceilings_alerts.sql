CREATE TABLE "alert_channel" (
	"id" uuid PRIMARY KEY NOT NULL,
	"tenant_id" uuid,
	"name" text NOT NULL,
	"kind" text NOT NULL,
	"config" jsonb NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_by" uuid
);
--> statement-breakpoint
CREATE TABLE "alert_delivery" (
	"id" uuid PRIMARY KEY NOT NULL,
	"tenant_id" uuid,
	"event_id" uuid NOT NULL,
	"channel_id" uuid NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"lease_until" timestamp with time zone,
	"last_error" text,
	"last_status" integer,
	"delivered_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "alert_event" (
	"id" uuid PRIMARY KEY NOT NULL,
	"tenant_id" uuid,
	"rule_id" uuid,
	"dedupe_key" text NOT NULL,
	"severity" text NOT NULL,
	"title" text NOT NULL,
	"body" text NOT NULL,
	"details" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "alert_rule" (
	"id" uuid PRIMARY KEY NOT NULL,
	"tenant_id" uuid,
	"name" text NOT NULL,
	"kind" text NOT NULL,
	"params" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"channel_ids" uuid[] DEFAULT '{}'::uuid[] NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_by" uuid
);
--> statement-breakpoint
CREATE TABLE "run_ceiling" (
	"tenant_id" uuid NOT NULL,
	"scope" text NOT NULL,
	"subject_id" uuid NOT NULL,
	"max_usd" numeric(20, 10),
	"max_calls" integer,
	"max_tokens" bigint,
	"max_seconds" integer,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_by" uuid,
	CONSTRAINT "run_ceiling_tenant_id_scope_subject_id_pk" PRIMARY KEY("tenant_id","scope","subject_id")
);
--> statement-breakpoint
CREATE TABLE "run_start" (
	"tenant_id" uuid NOT NULL,
	"run_id" text NOT NULL,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "run_start_tenant_id_run_id_pk" PRIMARY KEY("tenant_id","run_id")
);
--> statement-breakpoint
ALTER TABLE "alert_channel" ADD CONSTRAINT "alert_channel_tenant_id_tenant_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenant"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alert_delivery" ADD CONSTRAINT "alert_delivery_tenant_id_tenant_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenant"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alert_delivery" ADD CONSTRAINT "alert_delivery_event_id_alert_event_id_fk" FOREIGN KEY ("event_id") REFERENCES "public"."alert_event"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alert_delivery" ADD CONSTRAINT "alert_delivery_channel_id_alert_channel_id_fk" FOREIGN KEY ("channel_id") REFERENCES "public"."alert_channel"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alert_event" ADD CONSTRAINT "alert_event_tenant_id_tenant_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenant"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alert_event" ADD CONSTRAINT "alert_event_rule_id_alert_rule_id_fk" FOREIGN KEY ("rule_id") REFERENCES "public"."alert_rule"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alert_rule" ADD CONSTRAINT "alert_rule_tenant_id_tenant_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenant"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "run_ceiling" ADD CONSTRAINT "run_ceiling_tenant_id_tenant_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenant"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "alert_channel_tenant_idx" ON "alert_channel" USING btree ("tenant_id");--> statement-breakpoint
CREATE INDEX "alert_delivery_due_idx" ON "alert_delivery" USING btree ("next_attempt_at") WHERE "alert_delivery"."status" = 'pending';--> statement-breakpoint
CREATE INDEX "alert_delivery_tenant_created_idx" ON "alert_delivery" USING btree ("tenant_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "alert_event_rule_dedupe_idx" ON "alert_event" USING btree ("rule_id","dedupe_key");--> statement-breakpoint
CREATE INDEX "alert_event_tenant_fired_idx" ON "alert_event" USING btree ("tenant_id","created_at");--> statement-breakpoint
CREATE INDEX "alert_rule_tenant_idx" ON "alert_rule" USING btree ("tenant_id");--> statement-breakpoint
CREATE INDEX "run_start_started_idx" ON "run_start" USING btree ("started_at");