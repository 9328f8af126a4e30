CREATE TABLE "tenant_sso_domain" (
	"domain" text PRIMARY KEY NOT NULL,
	"tenant_id" uuid NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "user_identity" (
	"issuer" text NOT NULL,
	"subject" text NOT NULL,
	"user_id" uuid NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "user_identity_issuer_subject_pk" PRIMARY KEY("issuer","subject")
);
--> statement-breakpoint
ALTER TABLE "app_user" ADD COLUMN "email_verified" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "tenant_sso_domain" ADD CONSTRAINT "tenant_sso_domain_tenant_id_tenant_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenant"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "user_identity" ADD CONSTRAINT "user_identity_user_id_app_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."app_user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "tenant_sso_domain_tenant_idx" ON "tenant_sso_domain" USING btree ("tenant_id");--> statement-breakpoint
CREATE INDEX "user_identity_user_idx" ON "user_identity" USING btree ("user_id");--> statement-breakpoint
-- Nothing recorded how existing accounts were made, so they are taken as verified; new ones say it themselves.
UPDATE "app_user" SET "email_verified" = true;--> statement-breakpoint
-- Each domain a tenant listed goes to the first tenant (by creation) that listed it; later claims are dropped.
INSERT INTO "tenant_sso_domain" ("domain", "tenant_id")
SELECT DISTINCT ON (lower(d.value)) lower(d.value), t."id"
FROM "tenant" t, jsonb_array_elements_text(t."sso_domains") AS d(value)
ORDER BY lower(d.value), t."created_at", t."id"
ON CONFLICT DO NOTHING;--> statement-breakpoint
ALTER TABLE "tenant" DROP COLUMN "sso_domains";