import { Migration } from '@mikro-orm/migrations';

/**
 * Writes whose cost does not grow with the data (issue #14).
 *
 * - `compliance_tally`: the figures the scores are made of (requirements by framework, status,
 *   priority and validation; clause coverage; open findings by severity) kept as signed deltas that
 *   row triggers append on every change, whoever writes it. Measuring sums the tally instead of the
 *   whole tables; appending never waits for another writer. `ComplianceTally.compact` folds the deltas
 *   into one row per bucket now and then, so the sum stays short.
 * - `read_model_version`: 64 rows instead of one. A writing transaction bumps one row chosen by its
 *   transaction id, once per transaction, while it commits (deferred); readers take the sum. Two
 *   writers wait for each other only when they pick the same row, and a reader still sees the new
 *   version exactly when it sees the new rows.
 */
export class Migration20261123120000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "compliance_tally" (
      "id" bigserial primary key,
      "kind" char(1) not null,
      "framework" varchar(20) not null,
      "status" varchar(12) null,
      "priority" varchar(10) null,
      "clause" text null,
      "severity" varchar(10) null,
      "n" integer not null,
      "passed" integer not null default 0
    );`);

    this.addSql(`create function "compliance_tally_requirements"() returns trigger language plpgsql as $$
declare
  counts_changed boolean := true;
  clauses_changed boolean := true;
begin
  if tg_op = 'UPDATE' then
    counts_changed := (old.deleted_at is null) is distinct from (new.deleted_at is null)
      or old.framework is distinct from new.framework or old.status is distinct from new.status
      or old.priority is distinct from new.priority
      or (old.validation->>'status' = 'passed') is distinct from (new.validation->>'status' = 'passed');
    clauses_changed := (old.deleted_at is null) is distinct from (new.deleted_at is null)
      or old.framework is distinct from new.framework
      or coalesce(old.clauses, '[]'::jsonb) is distinct from coalesce(new.clauses, '[]'::jsonb);
  end if;
  if tg_op in ('UPDATE', 'DELETE') and old.deleted_at is null then
    if counts_changed then
      insert into "compliance_tally" ("kind", "framework", "status", "priority", "n", "passed")
      values ('r', old.framework, old.status, old.priority, -1, case when old.validation->>'status' = 'passed' then -1 else 0 end);
    end if;
    if clauses_changed then
      insert into "compliance_tally" ("kind", "framework", "clause", "n")
      select 'c', old.framework, c, -1 from jsonb_array_elements_text(coalesce(old.clauses, '[]'::jsonb)) as c;
    end if;
  end if;
  if tg_op in ('INSERT', 'UPDATE') and new.deleted_at is null then
    if counts_changed then
      insert into "compliance_tally" ("kind", "framework", "status", "priority", "n", "passed")
      values ('r', new.framework, new.status, new.priority, 1, case when new.validation->>'status' = 'passed' then 1 else 0 end);
    end if;
    if clauses_changed then
      insert into "compliance_tally" ("kind", "framework", "clause", "n")
      select 'c', new.framework, c, 1 from jsonb_array_elements_text(coalesce(new.clauses, '[]'::jsonb)) as c;
    end if;
  end if;
  return null;
end $$;`);

    this.addSql(`create function "compliance_tally_findings"() returns trigger language plpgsql as $$
begin
  if tg_op = 'UPDATE' and (old.status <> 'resolved') = (new.status <> 'resolved')
     and old.framework is not distinct from new.framework and old.severity is not distinct from new.severity then
    return null;
  end if;
  if tg_op in ('UPDATE', 'DELETE') and old.status <> 'resolved' then
    insert into "compliance_tally" ("kind", "framework", "severity", "n") values ('f', old.framework, old.severity, -1);
  end if;
  if tg_op in ('INSERT', 'UPDATE') and new.status <> 'resolved' then
    insert into "compliance_tally" ("kind", "framework", "severity", "n") values ('f', new.framework, new.severity, 1);
  end if;
  return null;
end $$;`);

    this.addSql(`create function "compliance_tally_truncated"() returns trigger language plpgsql as $$
begin
  if tg_table_name = 'requirements' then
    delete from "compliance_tally" where "kind" in ('r', 'c');
  else
    delete from "compliance_tally" where "kind" = 'f';
  end if;
  return null;
end $$;`);

    this.addSql(
      `create trigger "requirements_compliance_tally" after insert or update or delete on "requirements" for each row execute function "compliance_tally_requirements"();`,
    );
    this.addSql(
      `create trigger "audit_findings_compliance_tally" after insert or update or delete on "audit_findings" for each row execute function "compliance_tally_findings"();`,
    );
    this.addSql(
      `create trigger "requirements_compliance_tally_truncate" after truncate on "requirements" for each statement execute function "compliance_tally_truncated"();`,
    );
    this.addSql(
      `create trigger "audit_findings_compliance_tally_truncate" after truncate on "audit_findings" for each statement execute function "compliance_tally_truncated"();`,
    );

    // What is there already, one row per bucket.
    this.addSql(`insert into "compliance_tally" ("kind", "framework", "status", "priority", "n", "passed")
      select 'r', framework, status, priority, count(*), count(*) filter (where validation->>'status' = 'passed')
        from "requirements" where deleted_at is null group by framework, status, priority;`);
    this.addSql(`insert into "compliance_tally" ("kind", "framework", "clause", "n")
      select 'c', r.framework, c, count(*) from "requirements" r cross join lateral jsonb_array_elements_text(coalesce(r.clauses, '[]'::jsonb)) as c
       where r.deleted_at is null group by r.framework, c;`);
    this.addSql(`insert into "compliance_tally" ("kind", "framework", "severity", "n")
      select 'f', framework, severity, count(*) from "audit_findings" where status <> 'resolved' group by framework, severity;`);

    // The version, spread over 64 rows.
    this.addSql(`insert into "read_model_version" ("id", "version") select g, 0 from generate_series(2, 64) as g;`);
    this.addSql(`create or replace function "bump_read_model_version"() returns trigger language plpgsql as $$
declare
  tx text := txid_current()::text;
begin
  if current_setting('read_model.bumped_by', true) is not distinct from tx then
    return null;
  end if;
  perform set_config('read_model.bumped_by', tx, true);
  update "read_model_version" set "version" = "version" + 1 where "id" = 1 + (txid_current() % 64);
  return null;
end $$;`);
  }

  override async down(): Promise<void> {
    this.addSql(
      `create or replace function "bump_read_model_version"() returns trigger language plpgsql as $$ begin update "read_model_version" set "version" = "version" + 1 where "id" = 1; return null; end $$;`,
    );
    this.addSql(`update "read_model_version" set "version" = (select sum("version") from "read_model_version") where "id" = 1;`);
    this.addSql(`delete from "read_model_version" where "id" > 1;`);
    for (const t of ['requirements', 'audit_findings']) {
      this.addSql(`drop trigger if exists "${t}_compliance_tally" on "${t}";`);
      this.addSql(`drop trigger if exists "${t}_compliance_tally_truncate" on "${t}";`);
    }
    this.addSql(`drop function if exists "compliance_tally_requirements"();`);
    this.addSql(`drop function if exists "compliance_tally_findings"();`);
    this.addSql(`drop function if exists "compliance_tally_truncated"();`);
    this.addSql(`drop table if exists "compliance_tally";`);
  }
}
