CREATE TABLE "tenant_model_price" (
	"tenant_id" uuid NOT NULL,
	"provider" text NOT NULL,
	"model" text NOT NULL,
	"input" numeric(20, 10) NOT NULL,
	"cached_input" numeric(20, 10),
	"cache_write" numeric(20, 10),
	"output" numeric(20, 10) NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_by" uuid,
	CONSTRAINT "tenant_model_price_tenant_id_provider_model_pk" PRIMARY KEY("tenant_id","provider","model")
);
--> statement-breakpoint
ALTER TABLE "sys_agent_turn" ADD COLUMN "cost_status" text DEFAULT 'priced' NOT NULL;--> statement-breakpoint
-- Rows written before this column: a closed call with tokens and no cost was served by an unpriced model.
UPDATE "sys_agent_turn" SET "cost_status" = 'unpriced' WHERE "cost" IS NULL AND "status" <> 'running' AND ("input_tokens" + "cached_input_tokens" + "cache_write_tokens" + "output_tokens") > 0;--> statement-breakpoint
ALTER TABLE "tenant_model_price" ADD CONSTRAINT "tenant_model_price_tenant_id_tenant_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenant"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "sys_agent_turn_tenant_cost_status_idx" ON "sys_agent_turn" USING btree ("tenant_id","started_at") WHERE "sys_agent_turn"."cost_status" <> 'priced';