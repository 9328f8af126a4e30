-- How small a ledger row and an audit event can get in PostgreSQL with the indexes the pages use: a prototype of
-- the leanest layout (names as small ids, the chain hash as bytes and no previous hash, the payload as compressed
-- bytes of the length a dictionary deflate gave), filled in time order from the sample, beside the layout that
-- ships. The compressed payloads are simulated (bytes of that length, not real deflate output): the figure is
-- what their size would cost, not a measure of compression. Run on a database `bench:admin --keep` left:
--   psql -h 127.0.0.1 -U postgres -d tollgate_bench_<pid> -f bench/row-floor.sql
drop table if exists floor_name, floor_turn, floor_audit;
create table floor_name (id serial primary key, name text unique not null);
insert into floor_name (name)
  select distinct v from (select requested_model v from sys_agent_turn union select served_provider from sys_agent_turn
    union select served_adapter from sys_agent_turn union select served_model from sys_agent_turn
    union select error_class from sys_agent_turn) s where v is not null;
create table floor_turn (
  started_at timestamptz not null, id uuid not null, tenant_id uuid not null, user_id uuid, conversation_id uuid,
  api_key_id uuid, instance_id uuid, input_tokens int not null, cached_input_tokens int not null,
  cache_write_tokens int not null, output_tokens int not null, reasoning_tokens int not null, first_token_ms int,
  latency_ms int, prompt_version int, requested_model int not null, served_provider int, served_adapter int,
  served_model int, error_class int, attempts int2 not null, fallback_index int2, rounds int2 not null,
  cache_hits int2 not null, source int2 not null, status int2 not null, cost_status int2 not null, cost numeric,
  tool_trace jsonb, tags text[], end_user text, error_message text, request_metadata jsonb, prompt_name text);
create index on floor_turn (id, started_at);
create index on floor_turn (tenant_id, started_at);
create index on floor_turn (tenant_id, end_user, started_at) where end_user is not null;
create index on floor_turn (tenant_id, api_key_id, started_at) where api_key_id is not null;
create index on floor_turn using gin (tags) where tags is not null;
create index on floor_turn (tenant_id, started_at) where cost_status <> 0;
create index on floor_turn (started_at);
create index on floor_turn (tenant_id, prompt_name, prompt_version, started_at) where prompt_name is not null;
create index on floor_turn (tenant_id, status, started_at) where status <> 1;
create index on floor_turn (tenant_id, status, served_model, started_at) where status <> 1;
create index on floor_turn (tenant_id, served_model, started_at);
create index on floor_turn (started_at) where status = 0;
insert into floor_turn select t.started_at, t.id, t.tenant_id, t.user_id, t.conversation_id, t.api_key_id,
  t.instance_id, t.input_tokens, t.cached_input_tokens, t.cache_write_tokens, t.output_tokens, t.reasoning_tokens,
  t.first_token_ms, t.latency_ms, t.prompt_version,
  (select id from floor_name where name = t.requested_model), (select id from floor_name where name = t.served_provider),
  (select id from floor_name where name = t.served_adapter), (select id from floor_name where name = t.served_model),
  (select id from floor_name where name = t.error_class), t.attempts, t.fallback_index, t.rounds, t.cache_hits,
  array_position(array['drawer','api','schedule','playground','eval','mcp'], t.source),
  array_position(array['running','success','failed','stopped','limit','interrupted'], t.status) - 1,
  array_position(array['priced','unpriced','assumed'], t.cost_status) - 1, t.cost,
  -- The trace as [name, ms, ok] triples; none when empty.
  (select jsonb_agg(jsonb_build_array(x->>'name', (x->>'durationMs')::int, (x->>'ok')::bool))
     from jsonb_array_elements(t.tool_trace) x),
  nullif(t.tags, '{}'), t.end_user, t.error_message, t.request_metadata, t.prompt_name
  from sys_agent_turn t order by t.started_at;
create table floor_audit (
  created_at timestamptz not null, chain_seq int8, id uuid not null, tenant_id uuid not null, user_id uuid,
  turn_id uuid not null, conversation_id uuid, seq int not null, type int2 not null, hash bytea, payload bytea not null);
create index on floor_audit (id, created_at);
create index on floor_audit (turn_id, seq);
create index on floor_audit (tenant_id, created_at);
create index on floor_audit (tenant_id, type, created_at);
create index on floor_audit (created_at);
-- 58 bytes for a 339-byte payload: a raw deflate with a 16 kB preset dictionary of sample payloads (measured in Node).
insert into floor_audit select a.created_at, row_number() over (partition by a.tenant_id order by a.created_at, a.id),
  a.id, a.tenant_id, a.user_id, a.turn_id, a.conversation_id, a.seq,
  array_position(array['request','model_call','answer','tool_call','tool_result','confirmation','guardrail','fallback','error','stop'], a.type),
  sha256(a.id::text::bytea),
  substring(decode(repeat(md5(a.id::text), 64), 'hex') from 1 for greatest(8, round(octet_length(a.payload::text) * 58.0 / 339)::int))
  from sys_agent_audit a order by a.created_at;
-- The shipped audit layout, with the chain's hex hashes the generator leaves out.
drop table if exists ship_audit;
create table ship_audit (like sys_agent_audit including defaults);
create index on ship_audit (id, created_at);
create index on ship_audit (turn_id, seq);
create index on ship_audit (tenant_id, created_at);
create index on ship_audit (tenant_id, type, created_at);
create index on ship_audit (created_at);
insert into ship_audit select a.id, a.tenant_id, a.user_id, a.turn_id, a.conversation_id, a.seq, a.type, a.payload,
  a.created_at, row_number() over (partition by a.tenant_id order by a.created_at, a.id),
  encode(sha256(a.id::text::bytea), 'hex'), encode(sha256(a.turn_id::text::bytea), 'hex')
  from sys_agent_audit a order by a.created_at;
vacuum analyze floor_turn, floor_audit, ship_audit;
select 'floor turn' s, pg_total_relation_size('floor_turn') / (select count(*) from floor_turn) as per_row,
  pg_indexes_size('floor_turn') / (select count(*) from floor_turn) as idx, pg_relation_size('floor_turn') / (select count(*) from floor_turn) as heap
union all select 'shipped audit (with hashes)', pg_total_relation_size('ship_audit') / (select count(*) from ship_audit),
  pg_indexes_size('ship_audit') / (select count(*) from ship_audit), pg_relation_size('ship_audit') / (select count(*) from ship_audit)
union all select 'floor audit', pg_total_relation_size('floor_audit') / (select count(*) from floor_audit),
  pg_indexes_size('floor_audit') / (select count(*) from floor_audit), pg_relation_size('floor_audit') / (select count(*) from floor_audit);
reindex table floor_turn; reindex table floor_audit; reindex table ship_audit;
select 'floor turn, compacted' s, pg_total_relation_size('floor_turn') / (select count(*) from floor_turn) as per_row,
  pg_indexes_size('floor_turn') / (select count(*) from floor_turn) as idx
union all select 'shipped audit, compacted', pg_total_relation_size('ship_audit') / (select count(*) from ship_audit),
  pg_indexes_size('ship_audit') / (select count(*) from ship_audit)
union all select 'floor audit, compacted', pg_total_relation_size('floor_audit') / (select count(*) from floor_audit),
  pg_indexes_size('floor_audit') / (select count(*) from floor_audit);
select avg(pg_column_size(f.*))::int as turn_tuple, (select avg(pg_column_size(a.*))::int from floor_audit a) as audit_tuple,
  (select avg(pg_column_size(payload))::int from floor_audit) as payload from floor_turn f;
drop table floor_name, floor_turn, floor_audit, ship_audit;
-- A turn's events in one row (its types in an array for the type filter, one hash for the row), stored with lz4:
-- such a row is over the 2 kB at which PostgreSQL compresses, so its JSON payloads compress without the
-- application spending CPU on it. Bytes per event: the table and its indexes over the events it holds.
drop table if exists floor_turn_events;
create table floor_turn_events (created_at timestamptz not null, turn_id uuid not null, tenant_id uuid not null,
  user_id uuid, conversation_id uuid, chain_seq int8, hash bytea, types int2[] not null, events jsonb not null);
alter table floor_turn_events alter column events set compression lz4;
create index on floor_turn_events (turn_id, created_at);
create index on floor_turn_events (tenant_id, created_at);
create index on floor_turn_events (created_at);
create index on floor_turn_events using gin (types);
insert into floor_turn_events
select min(a.created_at), a.turn_id, min(a.tenant_id::text)::uuid, min(a.user_id::text)::uuid,
  min(a.conversation_id::text)::uuid, null, sha256(a.turn_id::text::bytea),
  array_agg(distinct array_position(array['request','model_call','answer','tool_call','tool_result','confirmation','guardrail','fallback','error','stop'], a.type))::int2[],
  jsonb_agg(jsonb_build_array(a.seq, a.type, a.created_at, a.payload) order by a.seq)
from sys_agent_audit a group by a.turn_id order by 1;
vacuum analyze floor_turn_events;
select 'audit, a turn a row' s, round(pg_total_relation_size('floor_turn_events') / (select count(*) from sys_agent_audit)::numeric) as per_event,
  round(pg_indexes_size('floor_turn_events') / (select count(*) from sys_agent_audit)::numeric) as idx,
  round(pg_relation_size('floor_turn_events') / (select count(*) from sys_agent_audit)::numeric) as heap,
  round((pg_total_relation_size('floor_turn_events') - pg_indexes_size('floor_turn_events') - pg_relation_size('floor_turn_events'))
    / (select count(*) from sys_agent_audit)::numeric) as toast;
drop table floor_turn_events;
