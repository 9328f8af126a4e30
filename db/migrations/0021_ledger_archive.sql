CREATE TABLE "ledger_archive" (
	"tenant_id" uuid NOT NULL,
	"month" text NOT NULL,
	"location" text NOT NULL,
	"turns" integer NOT NULL,
	"audit_events" integer NOT NULL,
	"bytes" bigint NOT NULL,
	"manifest_sha256" text NOT NULL,
	"archived_at" timestamp with time zone DEFAULT now() NOT NULL,
	"restored_at" timestamp with time zone,
	CONSTRAINT "ledger_archive_tenant_id_month_pk" PRIMARY KEY("tenant_id","month")
);
--> statement-breakpoint
ALTER TABLE "tenant" ADD COLUMN "archive_after_days" integer;