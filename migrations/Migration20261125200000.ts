import { Migration } from '@mikro-orm/migrations';

/**
 * A version of what a change's webhook fan-out reads (issue #14): the active webhooks and the keys
 * that own them (name, permissions, admin flag, plan). Bumped by the database itself in the
 * transaction that changes either, whoever writes it, so every instance keeps the subscribers in
 * memory and reads them again only when the version it reads has moved. A key's last use is not
 * part of it (that column changes on every request).
 */
export class Migration20261125200000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "webhook_subscribers_version" ("id" smallint not null, "version" bigint not null default 0, constraint "webhook_subscribers_version_pkey" primary key ("id"));`,
    );
    this.addSql(`insert into "webhook_subscribers_version" ("id", "version") values (1, 0);`);
    this.addSql(
      `create function "bump_webhook_subscribers_version"() returns trigger language plpgsql as $$ begin update "webhook_subscribers_version" set "version" = "version" + 1 where "id" = 1; return null; end $$;`,
    );
    this.addSql(
      `create trigger "webhooks_subscribers_version" after insert or update or delete or truncate on "webhooks" for each statement execute function "bump_webhook_subscribers_version"();`,
    );
    this.addSql(
      `create trigger "api_keys_subscribers_version" after insert or delete or truncate on "api_keys" for each statement execute function "bump_webhook_subscribers_version"();`,
    );
    this.addSql(
      `create trigger "api_keys_subscribers_version_update" after update of "id", "name", "permissions", "is_admin", "plan" on "api_keys" for each statement execute function "bump_webhook_subscribers_version"();`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop trigger if exists "webhooks_subscribers_version" on "webhooks";`);
    this.addSql(`drop trigger if exists "api_keys_subscribers_version" on "api_keys";`);
    this.addSql(`drop trigger if exists "api_keys_subscribers_version_update" on "api_keys";`);
    this.addSql(`drop function if exists "bump_webhook_subscribers_version"();`);
    this.addSql(`drop table if exists "webhook_subscribers_version";`);
  }
}
