ALTER TABLE "api_key" ADD COLUMN "expires_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "api_key" ADD COLUMN "rotated_from" uuid;--> statement-breakpoint
ALTER TABLE "api_key" ADD COLUMN "rotated_to" uuid;