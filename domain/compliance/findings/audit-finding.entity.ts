import { Entity, Index, PrimaryKey, Property } from '@mikro-orm/core';
import { clock } from '../../clock';

export type Severity = 'low' | 'medium' | 'high' | 'critical';
export const SEVERITIES: readonly Severity[] = ['low', 'medium', 'high', 'critical'];
export type FindingStatus = 'open' | 'in-progress' | 'resolved';
export const FINDING_STATUSES: readonly FindingStatus[] = ['open', 'in-progress', 'resolved'];

@Entity({ tableName: 'audit_findings' })
@Index({ properties: ['framework', 'severity', 'status'] })
export class AuditFinding {
  @PrimaryKey({ type: 'string', length: 40 })
  id!: string;

  @Property({ type: 'string', length: 300 })
  title!: string;

  @Property({ type: 'text', nullable: true })
  description?: string | null;

  @Property({ type: 'string', length: 20 })
  framework!: string;

  @Index()
  @Property({ type: 'string', length: 40, nullable: true })
  requirementId?: string | null;

  @Property({ type: 'string', length: 10 })
  severity!: Severity;

  @Property({ type: 'string', length: 12, default: 'open' })
  status: FindingStatus = 'open';

  @Property({ type: 'json' })
  evidence: string[] = [];

  @Property({ type: 'text', nullable: true })
  resolution?: string | null;

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  resolvedAt?: Date | null;

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  discoveredAt: Date = clock.now();

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  dueDate?: Date | null;

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  createdAt: Date = clock.now();

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  updatedAt: Date = clock.now();
}
