CREATE TABLE "mcp_server" (
	"id" uuid PRIMARY KEY NOT NULL,
	"tenant_id" uuid NOT NULL,
	"name" text NOT NULL,
	"url" text NOT NULL,
	"transport" text DEFAULT 'auto' NOT NULL,
	"connected_transport" text,
	"headers" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"timeout_ms" integer DEFAULT 30000 NOT NULL,
	"tools" jsonb,
	"tools_listed_at" timestamp with time zone,
	"last_checked_at" timestamp with time zone,
	"last_error" text,
	"last_latency_ms" integer,
	"created_by" uuid NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "mcp_tool_setting" (
	"tenant_id" uuid NOT NULL,
	"server_id" uuid NOT NULL,
	"tool" text NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"roles" "membership_role"[],
	"requires_confirmation" boolean DEFAULT false NOT NULL,
	"updated_by" uuid,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "mcp_tool_setting_tenant_id_server_id_tool_pk" PRIMARY KEY("tenant_id","server_id","tool")
);
--> statement-breakpoint
ALTER TABLE "mcp_server" ADD CONSTRAINT "mcp_server_tenant_id_tenant_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenant"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mcp_tool_setting" ADD CONSTRAINT "mcp_tool_setting_tenant_id_tenant_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenant"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mcp_tool_setting" ADD CONSTRAINT "mcp_tool_setting_server_id_mcp_server_id_fk" FOREIGN KEY ("server_id") REFERENCES "public"."mcp_server"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "mcp_server_tenant_name_idx" ON "mcp_server" USING btree ("tenant_id","name");--> statement-breakpoint
CREATE INDEX "mcp_tool_setting_server_idx" ON "mcp_tool_setting" USING btree ("server_id");