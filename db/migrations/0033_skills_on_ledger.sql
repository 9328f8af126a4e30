ALTER TABLE "sys_agent_turn" ADD COLUMN "skills" text[] DEFAULT '{}'::text[] NOT NULL;--> statement-breakpoint
ALTER TABLE "sys_agent_turn" ADD COLUMN "skill_versions" integer[] DEFAULT '{}'::integer[] NOT NULL;--> statement-breakpoint
CREATE INDEX "sys_agent_turn_skills_idx" ON "sys_agent_turn" USING gin ("skills") WHERE cardinality("sys_agent_turn"."skills") > 0;