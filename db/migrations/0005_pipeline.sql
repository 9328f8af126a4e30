CREATE TABLE "response_cache" (
	"tenant_id" uuid NOT NULL,
	"key" text NOT NULL,
	"model" text NOT NULL,
	"response" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	CONSTRAINT "response_cache_tenant_id_key_pk" PRIMARY KEY("tenant_id","key")
);
--> statement-breakpoint
CREATE TABLE "usage_counter" (
	"tenant_id" uuid NOT NULL,
	"key" text NOT NULL,
	"value" bigint DEFAULT 0 NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	CONSTRAINT "usage_counter_tenant_id_key_pk" PRIMARY KEY("tenant_id","key")
);
--> statement-breakpoint
CREATE TABLE "usage_limit" (
	"tenant_id" uuid NOT NULL,
	"scope" text NOT NULL,
	"subject_id" uuid NOT NULL,
	"requests_per_minute" integer,
	"tokens_per_minute" integer,
	"daily_soft_usd" numeric(20, 10),
	"daily_hard_usd" numeric(20, 10),
	"monthly_soft_usd" numeric(20, 10),
	"monthly_hard_usd" numeric(20, 10),
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_by" uuid,
	CONSTRAINT "usage_limit_tenant_id_scope_subject_id_pk" PRIMARY KEY("tenant_id","scope","subject_id")
);
--> statement-breakpoint
ALTER TABLE "sys_agent_turn" ADD COLUMN "cache_hits" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "tenant" ADD COLUMN "cache_aliases" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "tenant" ADD COLUMN "cache_ttl_seconds" integer DEFAULT 3600 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_limit" ADD CONSTRAINT "usage_limit_tenant_id_tenant_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenant"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "response_cache_expires_idx" ON "response_cache" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "usage_counter_expires_idx" ON "usage_counter" USING btree ("expires_at");