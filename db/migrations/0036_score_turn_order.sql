ALTER TABLE "score" ADD COLUMN "turn_started_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "score" ADD COLUMN "turn_model" text;--> statement-breakpoint
-- The scores already given carry their turn's start and model too (the primary key finds each turn).
UPDATE "score" s SET "turn_started_at" = t."started_at", "turn_model" = t."served_model"
  FROM "sys_agent_turn" t WHERE s."turn_id" IS NOT NULL AND t."id" = s."turn_id" AND t."tenant_id" = s."tenant_id";--> statement-breakpoint
CREATE INDEX "score_tenant_name_turn_idx" ON "score" USING btree ("tenant_id","name","turn_started_at","turn_id","value","category") WHERE "score"."turn_id" is not null;