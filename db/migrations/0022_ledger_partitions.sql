-- The ledger (sys_agent_turn, by started_at) and the audit trail (sys_agent_audit, by created_at) become
-- range-partitioned tables, converted in place: the existing table, with its rows and indexes, is attached as
-- the partition `<table>_legacy` holding everything before the first month after its newest row (one read to
-- validate the bound, plus the new primary key's index: no row is copied); an empty one is dropped. Then the
-- months from there on (three of them; db/partitions.ts creates more ahead) and a DEFAULT partition that takes
-- any row no partition covers (moved out when its partition is created), so no write ever fails for a missing
-- partition. Month arithmetic is done in UTC whatever the session's time zone.
DO $$
DECLARE
  t text;
  k text;
  defs text[];
  d text;
  r record;
  has_rows boolean;
  first_month timestamp;
  m timestamp;
BEGIN
  FOREACH t IN ARRAY ARRAY['sys_agent_turn', 'sys_agent_audit'] LOOP
    k := CASE t WHEN 'sys_agent_turn' THEN 'started_at' ELSE 'created_at' END;
    -- The indexes to carry over (all but the primary key, and the audit's unique (turn_id, seq), which becomes
    -- a plain index), as written, before the table and its indexes are renamed.
    SELECT coalesce(array_agg(pg_get_indexdef(i.indexrelid)), '{}') INTO defs
      FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
      WHERE i.indrelid = t::regclass AND NOT i.indisprimary AND c.relname <> 'sys_agent_audit_turn_seq_idx';
    EXECUTE format('ALTER TABLE %I RENAME TO %I', t, t || '_legacy');
    FOR r IN SELECT c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
      WHERE i.indrelid = (t || '_legacy')::regclass LOOP
      EXECUTE format('ALTER INDEX %I RENAME TO %I', r.relname, r.relname || '_l');
    END LOOP;
    EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS INCLUDING STORAGE) PARTITION BY RANGE (%I)',
      t, t || '_legacy', k);
    EXECUTE format('ALTER TABLE %I ADD CONSTRAINT %I PRIMARY KEY (id, %I)', t, t || '_pkey', k);
    FOREACH d IN ARRAY defs LOOP
      EXECUTE d;
    END LOOP;
    IF t = 'sys_agent_audit' THEN
      CREATE INDEX sys_agent_audit_turn_seq_idx ON sys_agent_audit USING btree (turn_id, seq);
    END IF;
    EXECUTE format('SELECT exists(SELECT 1 FROM %I)', t || '_legacy') INTO has_rows;
    IF has_rows THEN
      EXECUTE format('SELECT date_trunc(''month'', greatest(max(%I), now()) AT TIME ZONE ''UTC'') + interval ''1 month'' FROM %I',
        k, t || '_legacy') INTO first_month;
      -- The old constraints the partitioned table does not have (it builds its own on attach).
      EXECUTE format('ALTER TABLE %I DROP CONSTRAINT %I', t || '_legacy', t || '_pkey_l');
      EXECUTE format('DROP INDEX IF EXISTS %I', 'sys_agent_audit_turn_seq_idx_l');
      EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I FOR VALUES FROM (MINVALUE) TO (%L)',
        t, t || '_legacy', first_month AT TIME ZONE 'UTC');
    ELSE
      EXECUTE format('DROP TABLE %I', t || '_legacy');
      first_month := date_trunc('month', now() AT TIME ZONE 'UTC');
    END IF;
    FOR n IN 0..2 LOOP
      m := first_month + make_interval(months => n);
      EXECUTE format('CREATE TABLE %I PARTITION OF %I FOR VALUES FROM (%L) TO (%L)',
        t || '_p' || to_char(m, 'YYYY_MM'), t, m AT TIME ZONE 'UTC', (m + interval '1 month') AT TIME ZONE 'UTC');
    END LOOP;
    EXECUTE format('CREATE TABLE %I PARTITION OF %I DEFAULT', t || '_default', t);
  END LOOP;
END $$;
