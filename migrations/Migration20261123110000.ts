import { Migration } from '@mikro-orm/migrations';

/**
 * Who did what is a key, not a name (issue #11): the activity log keeps the acting key's id beside
 * the name it had, so a key named `admin` is never taken for the admin. Rows written before this
 * keep a null key id.
 */
export class Migration20261123110000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "activity_log" add column "user_key_id" varchar(40) null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "activity_log" drop column "user_key_id";`);
  }
}
