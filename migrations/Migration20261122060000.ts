import { Migration } from '@mikro-orm/migrations';

/**
 * A version of the compliance read model (requirements and their findings), bumped by the database
 * itself whenever a row of either table changes, whoever writes it. Readers that cache an answer
 * (the GraphQL response cache) compare versions. The bump is a deferred constraint trigger: the
 * version row is locked only while the writing transaction commits, and a reader sees the new
 * version exactly when it can see the new rows.
 */
export class Migration20261122060000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "read_model_version" ("id" smallint not null, "version" bigint not null default 0, constraint "read_model_version_pkey" primary key ("id"));`,
    );
    this.addSql(`insert into "read_model_version" ("id", "version") values (1, 0);`);
    this.addSql(
      `create function "bump_read_model_version"() returns trigger language plpgsql as $$ begin update "read_model_version" set "version" = "version" + 1 where "id" = 1; return null; end $$;`,
    );
    for (const table of ['requirements', 'audit_findings']) {
      this.addSql(
        `create constraint trigger "${table}_read_model_version" after insert or update or delete on "${table}" deferrable initially deferred for each row execute function "bump_read_model_version"();`,
      );
      this.addSql(
        `create trigger "${table}_read_model_version_truncate" after truncate on "${table}" for each statement execute function "bump_read_model_version"();`,
      );
    }
  }

  override async down(): Promise<void> {
    for (const table of ['requirements', 'audit_findings']) {
      this.addSql(`drop trigger if exists "${table}_read_model_version" on "${table}";`);
      this.addSql(`drop trigger if exists "${table}_read_model_version_truncate" on "${table}";`);
    }
    this.addSql(`drop function if exists "bump_read_model_version"();`);
    this.addSql(`drop table if exists "read_model_version";`);
  }
}
