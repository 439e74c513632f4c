import { BigIntType, Entity, Index, PrimaryKey, Property } from '@mikro-orm/core';

/**
 * One row of the audit trail (21 CFR 11.10(e)). Written in the transaction of the change it
 * records, never updated afterwards except once, by the sealer, which gives it its place in the
 * hash chain (`seq`, `previousHash`, `hash`). A database trigger refuses any other update or delete.
 */
@Entity({ tableName: 'audit_trail' })
// One index per list filter, each carrying the list's order: migration 20261128100000.
@Index({ name: 'audit_trail_entity_at_index', properties: ['entityType', 'entityId', 'at', 'id'] })
@Index({ name: 'audit_trail_key_at_index', properties: ['keyId', 'at', 'id'] })
@Index({ name: 'audit_trail_action_at_index', properties: ['action', 'at', 'id'] })
@Index({ properties: ['at', 'id'] })
export class AuditEntry {
  @PrimaryKey({ type: 'string', length: 40 })
  id!: string;

  /** Position in the chain; null until sealed. */
  @Property({ type: new BigIntType('number'), nullable: true, unique: true })
  seq?: number | null;

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  at!: Date;

  @Property({ type: 'string', length: 40, nullable: true })
  keyId?: string | null;

  /** The principal's name at the time of the change. */
  @Property({ type: 'string', length: 200 })
  actor!: string;

  @Property({ type: 'string', length: 60 })
  action!: string;

  @Property({ type: 'string', length: 30 })
  entityType!: string;

  @Property({ type: 'string', length: 60 })
  entityId!: string;

  @Property({ type: 'string', length: 100, nullable: true })
  requestId?: string | null;

  /** Values of the changed fields before the change (null for a creation). */
  @Property({ type: 'json', nullable: true })
  before?: Record<string, unknown> | null;

  /** Values of the changed fields after the change. */
  @Property({ type: 'json', nullable: true })
  after?: Record<string, unknown> | null;

  @Property({ type: 'string', length: 64 })
  contentHash!: string;

  @Property({ type: 'string', length: 64, nullable: true })
  previousHash?: string | null;

  @Property({ type: 'string', length: 64, nullable: true })
  hash?: string | null;
}
