import { Migration } from '@mikro-orm/migrations';

/**
 * An index for every documented list filter (issue #36, part 3). Each list reads a page newest first
 * (`created_at desc, id desc` for requirements, `discovered_at desc, id desc` for findings, `at desc,
 * id desc` for the audit trail and activity); an index that leads with the filtered column and then
 * carries the order lets a filtered page stop after `limit + offset` rows, however many newer rows of
 * other values there are (a soc2 page behind 90k newer gdpr rows: 68.9 ms before). Requirement
 * indexes are partial on `deleted_at is null`, as every requirement list is. Plain btrees: a null
 * `framework` (another change may allow it) is indexed like any value.
 */
const INDEXES: [name: string, table: string, columns: string, where?: string][] = [
  ['requirements_live_framework_created_index', 'requirements', '"framework", "created_at", "id"', '"deleted_at" is null'],
  ['requirements_live_status_created_index', 'requirements', '"status", "created_at", "id"', '"deleted_at" is null'],
  ['requirements_live_priority_created_index', 'requirements', '"priority", "created_at", "id"', '"deleted_at" is null'],
  ['requirements_live_framework_status_created_index', 'requirements', '"framework", "status", "created_at", "id"', '"deleted_at" is null'],
  ['audit_findings_discovered_index', 'audit_findings', '"discovered_at", "id"'],
  ['audit_findings_framework_discovered_index', 'audit_findings', '"framework", "discovered_at", "id"'],
  ['audit_findings_severity_discovered_index', 'audit_findings', '"severity", "discovered_at", "id"'],
  ['audit_findings_status_discovered_index', 'audit_findings', '"status", "discovered_at", "id"'],
  ['audit_findings_requirement_discovered_index', 'audit_findings', '"requirement_id", "discovered_at", "id"'],
  ['audit_trail_action_at_index', 'audit_trail', '"action", "at", "id"'],
  ['audit_trail_key_at_index', 'audit_trail', '"key_id", "at", "id"'],
  ['audit_trail_entity_at_index', 'audit_trail', '"entity_type", "entity_id", "at", "id"'],
];

/**
 * Indexes the new ones make redundant (each is a prefix of one above): dropped, so a write maintains
 * no more indexes than it must (`down` makes them again).
 */
const REPLACED: [name: string, table: string, columns: string][] = [
  ['requirements_framework_status_index', 'requirements', '"framework", "status"'],
  ['audit_findings_requirement_id_index', 'audit_findings', '"requirement_id"'],
  ['audit_trail_key_id_index', 'audit_trail', '"key_id"'],
  ['audit_trail_entity_type_entity_id_index', 'audit_trail', '"entity_type", "entity_id"'],
];

export class Migration20261128100000 extends Migration {
  override async up(): Promise<void> {
    for (const [name, table, columns, where] of INDEXES) {
      this.addSql(`create index if not exists "${name}" on "${table}" (${columns})${where ? ` where ${where}` : ''};`);
    }
    for (const [name] of REPLACED) this.addSql(`drop index if exists "${name}";`);
  }

  override async down(): Promise<void> {
    for (const [name, table, columns] of REPLACED) this.addSql(`create index if not exists "${name}" on "${table}" (${columns});`);
    for (const [name] of INDEXES) this.addSql(`drop index if exists "${name}";`);
  }
}
