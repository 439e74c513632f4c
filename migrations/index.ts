import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261122014758 } from './Migration20261122014758';
import { Migration20261122060000 } from './Migration20261122060000';
import { Migration20261123010000 } from './Migration20261123010000';
import { Migration20261123071500 } from './Migration20261123071500';
import { Migration20261123080000 } from './Migration20261123080000';
import { Migration20261123110000 } from './Migration20261123110000';
import { Migration20261123120000 } from './Migration20261123120000';
import { Migration20261125200000 } from './Migration20261125200000';
import { Migration20261126050000 } from './Migration20261126050000';
import { Migration20261128060000 } from './Migration20261128060000';
import { Migration20261128090000 } from './Migration20261128090000';
import { Migration20261128100000 } from './Migration20261128100000';

/** Listed by hand (not globbed) so the same list works from TypeScript sources and the compiled build. */
export const MIGRATIONS: MigrationObject[] = [
  { name: 'Migration20261122014758_initial', class: Migration20261122014758 },
  { name: 'Migration20261122060000_read_model_version', class: Migration20261122060000 },
  { name: 'Migration20261123010000_audit_trail', class: Migration20261123010000 },
  { name: 'Migration20261123071500_requirement_clauses', class: Migration20261123071500 },
  { name: 'Migration20261123080000_report_integrity', class: Migration20261123080000 },
  { name: 'Migration20261123110000_activity_key_id', class: Migration20261123110000 },
  { name: 'Migration20261123120000_compliance_tally', class: Migration20261123120000 },
  { name: 'Migration20261125200000_webhook_subscribers_version', class: Migration20261125200000 },
  { name: 'Migration20261126050000_tally_change_function', class: Migration20261126050000 },
  { name: 'Migration20261128060000_webhook_events', class: Migration20261128060000 },
  { name: 'Migration20261128090000_unassigned_requirements', class: Migration20261128090000 },
  { name: 'Migration20261128100000_list_filter_indexes', class: Migration20261128100000 },
];
