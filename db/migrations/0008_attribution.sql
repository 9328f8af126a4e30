ALTER TABLE "sys_agent_turn" ADD COLUMN "end_user" text;--> statement-breakpoint
ALTER TABLE "sys_agent_turn" ADD COLUMN "tags" text[] DEFAULT '{}'::text[] NOT NULL;--> statement-breakpoint
ALTER TABLE "sys_agent_turn" ADD COLUMN "request_metadata" jsonb;--> statement-breakpoint
CREATE INDEX "sys_agent_turn_tenant_end_user_idx" ON "sys_agent_turn" USING btree ("tenant_id","end_user","started_at") WHERE "sys_agent_turn"."end_user" is not null;--> statement-breakpoint
CREATE INDEX "sys_agent_turn_tenant_api_key_idx" ON "sys_agent_turn" USING btree ("tenant_id","api_key_id","started_at") WHERE "sys_agent_turn"."api_key_id" is not null;--> statement-breakpoint
CREATE INDEX "sys_agent_turn_tags_idx" ON "sys_agent_turn" USING gin ("tags");