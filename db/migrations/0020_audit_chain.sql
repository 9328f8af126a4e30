CREATE TABLE "sys_agent_audit_chain" (
	"tenant_id" uuid NOT NULL,
	"month" text NOT NULL,
	"seq" bigint DEFAULT 0 NOT NULL,
	"hash" text NOT NULL,
	"last_at" timestamp with time zone NOT NULL,
	"start_seq" bigint DEFAULT 0 NOT NULL,
	"start_hash" text,
	CONSTRAINT "sys_agent_audit_chain_tenant_id_month_pk" PRIMARY KEY("tenant_id","month")
);
--> statement-breakpoint
ALTER TABLE "sys_agent_audit" ADD COLUMN "chain_seq" bigint;--> statement-breakpoint
ALTER TABLE "sys_agent_audit" ADD COLUMN "hash" text;--> statement-breakpoint
ALTER TABLE "sys_agent_audit" ADD COLUMN "prev_hash" text;