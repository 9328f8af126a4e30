ALTER TABLE "tenant" ADD COLUMN "web_fetch_mode" text DEFAULT 'any' NOT NULL;--> statement-breakpoint
ALTER TABLE "tenant" ADD COLUMN "web_fetch_domains" jsonb DEFAULT '[]'::jsonb NOT NULL;