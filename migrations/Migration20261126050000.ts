import { Migration } from '@mikro-orm/migrations';

/**
 * A change's figures (issue #14, write ceiling): the tally read that every compliance change makes in
 * its transaction (`measureChange`) as a function, so its plan is made once per database session and
 * kept (PL/pgSQL keeps the plans of its static statements), not parsed and planned on every write.
 * On the embedded database, planning that read cost the single session about 0.2–0.35 ms per write.
 * The query is the one the gateway sent before, unchanged; `stable`, so it reads with the calling
 * statement's snapshot, as the inline read did. Adds a function only: nothing existing changes.
 * Its result columns restate the tally's column types: a migration that changes those changes this
 * function with them (a column of another type makes every change's read fail, which
 * tests/e2e/change-measurement.test.ts would show).
 */
export class Migration20261126050000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create function "compliance_tally_change"()
  returns table ("kind" char(1), "framework" varchar(20), "status" varchar(12), "priority" varchar(10), "clause" text, "severity" varchar(10),
                 "n" int, "passed" int, "n_before" int, "passed_before" int)
  language plpgsql stable as $$
#variable_conflict use_column
begin
  return query
    select t.kind, t.framework, t.status, t.priority, t.clause, t.severity, sum(t.n)::int, sum(t.passed)::int,
           coalesce(sum(t.n) filter (where t.xmin <> me.id), 0)::int,
           coalesce(sum(t.passed) filter (where t.xmin <> me.id), 0)::int
      from "compliance_tally" t, (select pg_current_xact_id()::xid as id) me
     group by t.kind, t.framework, t.status, t.priority, t.clause, t.severity
    having sum(t.n) <> 0 or sum(t.n) filter (where t.xmin <> me.id) <> 0;
end $$;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop function if exists "compliance_tally_change"();`);
  }
}
