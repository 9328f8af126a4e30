CREATE TABLE "review_item" (
	"id" uuid PRIMARY KEY NOT NULL,
	"tenant_id" uuid NOT NULL,
	"queue_id" uuid NOT NULL,
	"turn_id" uuid NOT NULL,
	"reason" text NOT NULL,
	"status" text DEFAULT 'open' NOT NULL,
	"claimed_by" uuid,
	"lease_until" timestamp with time zone,
	"skipped_by" uuid[] DEFAULT '{}'::uuid[] NOT NULL,
	"done_by" uuid,
	"done_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "review_queue" (
	"id" uuid PRIMARY KEY NOT NULL,
	"tenant_id" uuid NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"rules" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"reviewers" text DEFAULT 'admins' NOT NULL,
	"score_names" text[] DEFAULT '{}'::text[] NOT NULL,
	"dataset_id" uuid,
	"lease_seconds" integer DEFAULT 600 NOT NULL,
	"filled_until" timestamp with time zone,
	"created_by" uuid NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"archived_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "membership" ADD COLUMN "reviewer" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "review_item" ADD CONSTRAINT "review_item_tenant_id_tenant_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenant"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "review_item" ADD CONSTRAINT "review_item_queue_id_review_queue_id_fk" FOREIGN KEY ("queue_id") REFERENCES "public"."review_queue"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "review_queue" ADD CONSTRAINT "review_queue_tenant_id_tenant_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenant"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "review_item_queue_turn_idx" ON "review_item" USING btree ("queue_id","turn_id");--> statement-breakpoint
CREATE INDEX "review_item_queue_open_idx" ON "review_item" USING btree ("queue_id","created_at") WHERE "review_item"."status" = 'open';--> statement-breakpoint
CREATE INDEX "review_item_tenant_done_idx" ON "review_item" USING btree ("tenant_id","queue_id","done_at") WHERE "review_item"."status" = 'done';--> statement-breakpoint
CREATE UNIQUE INDEX "review_queue_tenant_name_idx" ON "review_queue" USING btree ("tenant_id","name");