-- Row size before and after the lean ledger indexes (migrations 0023 and 0024), on the same rows, written in time order as the
-- gateway writes them: two empty copies of sys_agent_turn, one with the indexes before 0023 and one with those after 0024.
-- Run on a database the admin benchmark keeps:
--   npm run bench:admin -- --turns 100000 --keep --no-report   (prints the database's name: tollgate_bench_<pid>)
--   psql -h 127.0.0.1 -U postgres -d tollgate_bench_<pid> -f bench/row-size.sql
drop table if exists ab_old, ab_new;
create table ab_old (like sys_agent_turn including defaults including storage including compression);
create table ab_new (like sys_agent_turn including defaults including storage including compression);
-- the indexes both share
create index on ab_old (id, started_at); create index on ab_new (id, started_at);
create index on ab_old (tenant_id, started_at); create index on ab_new (tenant_id, started_at);
create index on ab_old (tenant_id, end_user, started_at) where end_user is not null; create index on ab_new (tenant_id, end_user, started_at) where end_user is not null;
create index on ab_old (tenant_id, api_key_id, started_at) where api_key_id is not null; create index on ab_new (tenant_id, api_key_id, started_at) where api_key_id is not null;
create index on ab_old using gin (tags);
create index on ab_old (tenant_id, started_at) where cost_status <> 'priced'; create index on ab_new (tenant_id, started_at) where cost_status <> 'priced';
create index on ab_old (started_at); create index on ab_new (started_at);
create index on ab_old (tenant_id, prompt_name, prompt_version, started_at) where prompt_name is not null; create index on ab_new (tenant_id, prompt_name, prompt_version, started_at) where prompt_name is not null;
-- old only
create index ab_old_status on ab_old (tenant_id, status, started_at);
create index ab_old_status_model on ab_old (tenant_id, status, served_model, started_at);
create index ab_old_running on ab_old (status, started_at);
-- new only
create index ab_new_status on ab_new (tenant_id, status, started_at) where status <> 'success';
create index ab_new_status_model on ab_new (tenant_id, status, served_model, started_at) where status <> 'success';
create index ab_new_model on ab_new (tenant_id, served_model, started_at);
create index ab_new_running on ab_new (started_at) where status = 'running';
create index ab_new_tags on ab_new using gin (tags) where cardinality(tags) > 0;
insert into ab_old select * from sys_agent_turn order by started_at;
insert into ab_new select * from sys_agent_turn order by started_at;
vacuum analyze ab_old, ab_new;
select 'old' s, pg_total_relation_size('ab_old') / (select count(*) from ab_old) as per_turn, pg_indexes_size('ab_old')/(select count(*) from ab_old) idx, pg_relation_size('ab_old')/(select count(*) from ab_old) heap
union all select 'new', pg_total_relation_size('ab_new') / (select count(*) from ab_new), pg_indexes_size('ab_new')/(select count(*) from ab_new), pg_relation_size('ab_new')/(select count(*) from ab_new);
-- A finished period, compacted as the "ledger compaction" job does (db/partitions.ts compactPartitions).
reindex table ab_new;
select 'new, compacted' s, pg_total_relation_size('ab_new') / (select count(*) from ab_new) as per_turn, pg_indexes_size('ab_new')/(select count(*) from ab_new) idx, pg_relation_size('ab_new')/(select count(*) from ab_new) heap;
select indexrelid::regclass, round(pg_relation_size(indexrelid)/(select count(*) from ab_old)::numeric,1) from pg_index where indrelid in ('ab_old'::regclass,'ab_new'::regclass) order by 1::text;
drop table ab_old, ab_new;
