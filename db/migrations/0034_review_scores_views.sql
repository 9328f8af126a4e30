CREATE TABLE "saved_view" (
	"id" uuid PRIMARY KEY NOT NULL,
	"tenant_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"page" text NOT NULL,
	"name" text NOT NULL,
	"shared" boolean DEFAULT false NOT NULL,
	"is_default" boolean DEFAULT false NOT NULL,
	"state" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "score" (
	"id" uuid PRIMARY KEY NOT NULL,
	"tenant_id" uuid NOT NULL,
	"turn_id" uuid,
	"run_id" text,
	"name" text NOT NULL,
	"type" text NOT NULL,
	"value" double precision,
	"category" text,
	"comment" text,
	"source" text NOT NULL,
	"user_id" uuid,
	"api_key_id" uuid,
	"eval_run_id" uuid,
	"config_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "score_target_check" CHECK ("score"."turn_id" is not null or "score"."run_id" is not null)
);
--> statement-breakpoint
CREATE TABLE "score_config" (
	"id" uuid PRIMARY KEY NOT NULL,
	"tenant_id" uuid NOT NULL,
	"name" text NOT NULL,
	"type" text NOT NULL,
	"min" double precision,
	"max" double precision,
	"categories" text[] DEFAULT '{}'::text[] NOT NULL,
	"description" text,
	"archived_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "saved_view" ADD CONSTRAINT "saved_view_tenant_id_tenant_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenant"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "saved_view" ADD CONSTRAINT "saved_view_user_id_app_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."app_user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "score" ADD CONSTRAINT "score_tenant_id_tenant_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenant"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "score" ADD CONSTRAINT "score_user_id_app_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."app_user"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "score_config" ADD CONSTRAINT "score_config_tenant_id_tenant_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenant"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "saved_view_tenant_page_idx" ON "saved_view" USING btree ("tenant_id","page");--> statement-breakpoint
CREATE UNIQUE INDEX "saved_view_name_idx" ON "saved_view" USING btree ("tenant_id","page","user_id","name");--> statement-breakpoint
CREATE UNIQUE INDEX "saved_view_tenant_default_idx" ON "saved_view" USING btree ("tenant_id","page") WHERE "saved_view"."shared" and "saved_view"."is_default";--> statement-breakpoint
CREATE UNIQUE INDEX "saved_view_user_default_idx" ON "saved_view" USING btree ("tenant_id","user_id","page") WHERE not "saved_view"."shared" and "saved_view"."is_default";--> statement-breakpoint
CREATE INDEX "score_tenant_turn_idx" ON "score" USING btree ("tenant_id","turn_id") WHERE "score"."turn_id" is not null;--> statement-breakpoint
CREATE INDEX "score_tenant_run_idx" ON "score" USING btree ("tenant_id","run_id") WHERE "score"."run_id" is not null;--> statement-breakpoint
CREATE INDEX "score_tenant_name_value_idx" ON "score" USING btree ("tenant_id","name","value","turn_id");--> statement-breakpoint
CREATE INDEX "score_tenant_name_category_idx" ON "score" USING btree ("tenant_id","name","category","turn_id") WHERE "score"."category" is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "score_human_turn_idx" ON "score" USING btree ("tenant_id","turn_id","name","user_id") WHERE "score"."source" = 'human' and "score"."turn_id" is not null and "score"."user_id" is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "score_human_run_idx" ON "score" USING btree ("tenant_id","run_id","name","user_id") WHERE "score"."source" = 'human' and "score"."turn_id" is null and "score"."user_id" is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "score_config_tenant_name_idx" ON "score_config" USING btree ("tenant_id","name");