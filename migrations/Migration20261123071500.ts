import { Migration } from '@mikro-orm/migrations';

/**
 * The clauses each requirement maps to (issue #15: coverage in the score, the traceability matrix).
 * Existing rows are mapped at start-up (`ComplianceStatusService.ensureBaseline`): the mapping is the
 * validation engine's, in TypeScript, not SQL.
 */
export class Migration20261123071500 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "requirements" add column "clauses" jsonb null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "requirements" drop column "clauses";`);
  }
}
