CREATE TABLE "prompt" (
	"id" uuid PRIMARY KEY NOT NULL,
	"tenant_id" uuid NOT NULL,
	"name" text NOT NULL,
	"type" text NOT NULL,
	"created_by" uuid NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"archived_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "prompt_label" (
	"prompt_id" uuid NOT NULL,
	"tenant_id" uuid NOT NULL,
	"label" text NOT NULL,
	"version" integer NOT NULL,
	"updated_by" uuid NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "prompt_label_prompt_id_label_pk" PRIMARY KEY("prompt_id","label")
);
--> statement-breakpoint
CREATE TABLE "prompt_version" (
	"id" uuid PRIMARY KEY NOT NULL,
	"tenant_id" uuid NOT NULL,
	"prompt_id" uuid NOT NULL,
	"version" integer NOT NULL,
	"type" text NOT NULL,
	"messages" jsonb,
	"text" text,
	"config" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"variables" text[] DEFAULT '{}'::text[] NOT NULL,
	"message" text,
	"created_by" uuid NOT NULL,
	"created_by_email" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"archived_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "membership" ADD COLUMN "prompt_editor" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "sys_agent_turn" ADD COLUMN "prompt_name" text;--> statement-breakpoint
ALTER TABLE "sys_agent_turn" ADD COLUMN "prompt_version" integer;--> statement-breakpoint
ALTER TABLE "prompt" ADD CONSTRAINT "prompt_tenant_id_tenant_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenant"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "prompt_label" ADD CONSTRAINT "prompt_label_prompt_id_prompt_id_fk" FOREIGN KEY ("prompt_id") REFERENCES "public"."prompt"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "prompt_version" ADD CONSTRAINT "prompt_version_prompt_id_prompt_id_fk" FOREIGN KEY ("prompt_id") REFERENCES "public"."prompt"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "prompt_tenant_name_idx" ON "prompt" USING btree ("tenant_id","name");--> statement-breakpoint
CREATE UNIQUE INDEX "prompt_version_prompt_version_idx" ON "prompt_version" USING btree ("prompt_id","version");--> statement-breakpoint
CREATE INDEX "sys_agent_turn_tenant_prompt_idx" ON "sys_agent_turn" USING btree ("tenant_id","prompt_name","prompt_version","started_at") WHERE "sys_agent_turn"."prompt_name" is not null;