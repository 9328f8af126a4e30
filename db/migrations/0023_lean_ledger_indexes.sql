DROP INDEX "sys_agent_turn_tenant_status_idx";--> statement-breakpoint
DROP INDEX "sys_agent_turn_tenant_status_model_idx";--> statement-breakpoint
DROP INDEX "sys_agent_turn_running_idx";--> statement-breakpoint
CREATE INDEX "sys_agent_turn_tenant_model_idx" ON "sys_agent_turn" USING btree ("tenant_id","served_model","started_at");--> statement-breakpoint
CREATE INDEX "sys_agent_turn_tenant_status_idx" ON "sys_agent_turn" USING btree ("tenant_id","status","started_at") WHERE "sys_agent_turn"."status" <> 'success';--> statement-breakpoint
CREATE INDEX "sys_agent_turn_tenant_status_model_idx" ON "sys_agent_turn" USING btree ("tenant_id","status","served_model","started_at") WHERE "sys_agent_turn"."status" <> 'success';--> statement-breakpoint
CREATE INDEX "sys_agent_turn_running_idx" ON "sys_agent_turn" USING btree ("started_at") WHERE "sys_agent_turn"."status" = 'running';--> statement-breakpoint
-- Payloads compressed with lz4 where the server was built with it (faster than pglz at about the same ratio;
-- PGlite and some builds have pglz only, and keep it). SET COMPRESSION applies to the table it names, so every
-- table of the partition tree is set; partitions made later copy it (db/partitions.ts: INCLUDING COMPRESSION).
-- PostgreSQL compresses a value only in a row over about 2 kB (TOAST_TUPLE_THRESHOLD): the large payloads gain.
DO $$
DECLARE
  r record;
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY(enumvals)) THEN
    RETURN;
  END IF;
  FOR r IN SELECT relid FROM pg_partition_tree('sys_agent_audit') LOOP
    EXECUTE format('ALTER TABLE %s ALTER COLUMN payload SET COMPRESSION lz4', r.relid);
  END LOOP;
  FOR r IN SELECT relid FROM pg_partition_tree('sys_agent_turn') LOOP
    EXECUTE format('ALTER TABLE %s ALTER COLUMN tool_trace SET COMPRESSION lz4, ALTER COLUMN request_metadata SET COMPRESSION lz4, ALTER COLUMN error_message SET COMPRESSION lz4', r.relid);
  END LOOP;
END $$;
