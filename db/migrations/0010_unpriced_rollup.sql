ALTER TABLE "usage_daily" ADD COLUMN "unpriced_requests" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Lines written before the column: count their unpriced calls from the ledger (the definition in rollup-sql.ts).
UPDATE "usage_daily" u SET "unpriced_requests" = s.n FROM (
  SELECT tenant_id, (started_at at time zone 'UTC')::date AS day, user_id, source,
    coalesce(served_adapter, 'none') AS served_adapter, coalesce(served_model, requested_model) AS served_model,
    count(*)::int AS n
  FROM sys_agent_turn
  WHERE status <> 'running' AND user_id IS NOT NULL AND cost_status = 'unpriced'
  GROUP BY 1, 2, 3, 4, 5, 6
) s
WHERE (u.tenant_id, u.day, u.user_id, u.source, u.served_adapter, u.served_model)
  = (s.tenant_id, s.day, s.user_id, s.source, s.served_adapter, s.served_model);
