DROP INDEX "sys_agent_turn_tags_idx";--> statement-breakpoint
CREATE INDEX "sys_agent_turn_tags_idx" ON "sys_agent_turn" USING gin ("tags") WHERE cardinality("sys_agent_turn"."tags") > 0;