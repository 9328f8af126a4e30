CREATE TABLE "eval_dataset" (
	"id" uuid PRIMARY KEY NOT NULL,
	"tenant_id" uuid NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"scorers" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"created_by" uuid NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"archived_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "eval_dataset_item" (
	"id" uuid PRIMARY KEY NOT NULL,
	"tenant_id" uuid NOT NULL,
	"dataset_id" uuid NOT NULL,
	"input" jsonb NOT NULL,
	"expected" jsonb,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"source_turn_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"archived_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "eval_run" (
	"id" uuid PRIMARY KEY NOT NULL,
	"tenant_id" uuid NOT NULL,
	"dataset_id" uuid NOT NULL,
	"name" text,
	"status" text DEFAULT 'queued' NOT NULL,
	"targets" jsonb NOT NULL,
	"scorers" jsonb NOT NULL,
	"concurrency" integer DEFAULT 4 NOT NULL,
	"total" integer NOT NULL,
	"created_by" uuid NOT NULL,
	"api_key_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone,
	"cancel_requested_at" timestamp with time zone,
	"error" text
);
--> statement-breakpoint
CREATE TABLE "eval_run_item" (
	"id" uuid PRIMARY KEY NOT NULL,
	"tenant_id" uuid NOT NULL,
	"run_id" uuid NOT NULL,
	"item_id" uuid NOT NULL,
	"target_index" integer NOT NULL,
	"input" jsonb NOT NULL,
	"expected" jsonb,
	"item_updated_at" timestamp with time zone NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"claimed_by" uuid,
	"lease_until" timestamp with time zone,
	"attempts" integer DEFAULT 0 NOT NULL,
	"output" text,
	"tool_calls" jsonb,
	"turn_id" uuid,
	"latency_ms" integer,
	"cost" numeric(20, 10),
	"cost_status" text,
	"input_tokens" integer,
	"output_tokens" integer,
	"passed" boolean,
	"score" double precision,
	"scores" jsonb,
	"judge_cost" numeric(20, 10),
	"error" text,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "eval_dataset" ADD CONSTRAINT "eval_dataset_tenant_id_tenant_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenant"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "eval_dataset_item" ADD CONSTRAINT "eval_dataset_item_dataset_id_eval_dataset_id_fk" FOREIGN KEY ("dataset_id") REFERENCES "public"."eval_dataset"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "eval_run" ADD CONSTRAINT "eval_run_tenant_id_tenant_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenant"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "eval_run" ADD CONSTRAINT "eval_run_dataset_id_eval_dataset_id_fk" FOREIGN KEY ("dataset_id") REFERENCES "public"."eval_dataset"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "eval_run_item" ADD CONSTRAINT "eval_run_item_run_id_eval_run_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."eval_run"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "eval_dataset_tenant_name_idx" ON "eval_dataset" USING btree ("tenant_id","name");--> statement-breakpoint
CREATE INDEX "eval_dataset_item_dataset_idx" ON "eval_dataset_item" USING btree ("dataset_id","created_at");--> statement-breakpoint
CREATE INDEX "eval_run_tenant_created_idx" ON "eval_run" USING btree ("tenant_id","created_at");--> statement-breakpoint
CREATE INDEX "eval_run_status_idx" ON "eval_run" USING btree ("status");--> statement-breakpoint
CREATE UNIQUE INDEX "eval_run_item_run_item_target_idx" ON "eval_run_item" USING btree ("run_id","item_id","target_index");--> statement-breakpoint
CREATE INDEX "eval_run_item_run_status_idx" ON "eval_run_item" USING btree ("run_id","status");