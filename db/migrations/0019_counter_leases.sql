ALTER TABLE "usage_counter" ADD COLUMN "leases" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
-- One lease operation per counter, for one instance, atomically (lib/pipeline/allowances.ts explains the bound).
-- For each counter i: settle p_spent (what the instance spent of its allowance; beyond it, the overrun is added
-- to the counter), then bring the instance's unspent allowance towards p_want: a grant never passes the limit's
-- room, nor more than the room divided by the instances holding live leases (itself included) unless that is
-- less than p_need, in which case exactly p_need is granted or nothing; an allowance above p_want goes back.
-- An operation whose sequence number is not above the instance's last applied one changes nothing (a retry of
-- an operation whose answer was lost): the answer is the state as it is.
CREATE OR REPLACE FUNCTION tollgate_lease(
  p_tenant uuid,
  p_instance text,
  p_lease_ms bigint,
  p_keys text[],
  p_seq bigint[],
  p_spent bigint[],
  p_need bigint[],
  p_want bigint[],
  p_limit bigint[],
  p_ttl integer[]
) RETURNS TABLE(r_key text, r_held bigint, r_value bigint, r_leased bigint, r_holders integer, r_applied boolean)
LANGUAGE plpgsql AS $$
DECLARE
  i integer;
  now_ms bigint := (extract(epoch from clock_timestamp()) * 1000)::bigint;
  v bigint;
  ls jsonb;
  a bigint;
  s bigint;
  lim bigint;
  room bigint;
  g bigint;
  others integer;
  others_amount bigint;
BEGIN
  FOR i IN 1 .. coalesce(array_length(p_keys, 1), 0) LOOP
    INSERT INTO usage_counter AS c (tenant_id, key, value, expires_at, leases)
      VALUES (p_tenant, p_keys[i], 0, now() + make_interval(secs => p_ttl[i]), '{}'::jsonb)
      ON CONFLICT (tenant_id, key) DO UPDATE SET expires_at = greatest(c.expires_at, excluded.expires_at)
      RETURNING c.value, c.leases INTO v, ls;
    a := coalesce((ls -> p_instance ->> 'a')::bigint, 0);
    s := coalesce((ls -> p_instance ->> 's')::bigint, 0);
    SELECT count(*) FILTER (WHERE (e.value ->> 'a')::bigint > 0 AND (e.value ->> 'e')::bigint > now_ms),
           coalesce(sum((e.value ->> 'a')::bigint) FILTER (WHERE (e.value ->> 'e')::bigint > now_ms), 0)
      INTO others, others_amount
      FROM jsonb_each(ls) AS e
      WHERE e.key <> p_instance;
    r_applied := p_seq[i] > s;
    IF r_applied THEN
      a := a - p_spent[i];
      IF a < 0 THEN
        v := v - a;
        a := 0;
      END IF;
      lim := p_limit[i];
      IF p_want[i] > a THEN
        IF lim IS NULL THEN
          g := p_want[i] - a;
        ELSE
          room := greatest(lim - v, 0);
          g := least(p_want[i] - a, greatest(room / (others + 1), p_need[i] - a), room);
          IF g < 0 OR a + g < p_need[i] THEN
            g := 0;
          END IF;
        END IF;
        v := v + g;
        a := a + g;
      ELSIF p_want[i] < a THEN
        v := v - (a - p_want[i]);
        a := p_want[i];
      END IF;
      -- Leases lapsed ten minutes ago are forgotten: what they held stays counted, as spent.
      SELECT coalesce(jsonb_object_agg(e.key, e.value), '{}'::jsonb) INTO ls
        FROM jsonb_each(ls) AS e
        WHERE e.key <> p_instance AND (e.value ->> 'e')::bigint > now_ms - 600000;
      ls := ls || jsonb_build_object(p_instance, jsonb_build_object('a', a, 's', p_seq[i], 'e', now_ms + p_lease_ms));
      UPDATE usage_counter AS c SET value = v, leases = ls WHERE c.tenant_id = p_tenant AND c.key = p_keys[i];
    END IF;
    r_key := p_keys[i];
    r_held := a;
    r_value := v;
    r_leased := others_amount + a;
    r_holders := others + (CASE WHEN a > 0 THEN 1 ELSE 0 END);
    RETURN NEXT;
  END LOOP;
END
$$;
