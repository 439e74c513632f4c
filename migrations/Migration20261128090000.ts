import { Migration } from '@mikro-orm/migrations';

/**
 * A requirement with a title alone (issue 35): `requirements.framework` may be null, a requirement
 * not yet assigned to a framework. The compliance tally keeps its figures too (framework null), so
 * list totals count it; scoring reads only the catalogue's frameworks, so it is not scored.
 */
export class Migration20261128090000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "requirements" alter column "framework" drop not null;`);
    this.addSql(`alter table "compliance_tally" alter column "framework" drop not null;`);
  }

  /** Refused (by the constraint) while an unassigned requirement exists: assign or delete those first. */
  override async down(): Promise<void> {
    this.addSql(`delete from "compliance_tally" where "framework" is null;`);
    this.addSql(`alter table "compliance_tally" alter column "framework" set not null;`);
    this.addSql(`alter table "requirements" alter column "framework" set not null;`);
  }
}
