import { Migration } from '@mikro-orm/migrations';

/**
 * Reports an auditor accepts (issue #15): who requested a report (name as it was), the SHA-256 of
 * the file served, the model it was rendered from (so a signed rendition can be produced later
 * from the same data), its electronic signatures and every rendition's hash (verify accepts each).
 */
export class Migration20261123080000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `alter table "reports" add column "title" varchar(200) null, add column "requested_by_name" varchar(200) null, add column "sha256" varchar(64) null, add column "record_sha256" varchar(64) null, add column "model" jsonb null, add column "signatures" jsonb not null default '[]', add column "renditions" jsonb not null default '[]';`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(
      `alter table "reports" drop column "title", drop column "requested_by_name", drop column "sha256", drop column "record_sha256", drop column "model", drop column "signatures", drop column "renditions";`,
    );
  }
}
