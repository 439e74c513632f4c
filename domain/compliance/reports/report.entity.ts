import { Entity, PrimaryKey, Property } from '@mikro-orm/core';
import { clock } from '../../clock';

export type ReportStatus = 'generating' | 'completed' | 'failed';
export type ReportOrigin = 'compliance' | 'dashboard';
export type ReportType = 'compliance' | 'requirements' | 'audit' | 'summary';
export type ReportFormat = 'pdf' | 'json' | 'csv';

@Entity({ tableName: 'reports' })
export class Report {
  /** `rpt_…` for compliance reports, `dash_rpt_…` for dashboard reports. */
  @PrimaryKey({ type: 'string', length: 48 })
  id!: string;

  @Property({ type: 'string', length: 12 })
  origin!: ReportOrigin;

  @Property({ type: 'string', length: 16 })
  type!: ReportType;

  @Property({ type: 'string', length: 20, nullable: true })
  framework?: string | null;

  @Property({ type: 'string', length: 8 })
  format!: ReportFormat;

  @Property({ type: 'boolean', default: false })
  includeEvidence = false;

  @Property({ type: 'string', length: 20, nullable: true })
  period?: string | null;

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  rangeStart?: Date | null;

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  rangeEnd?: Date | null;

  @Property({ type: 'string', length: 12, default: 'generating' })
  status: ReportStatus = 'generating';

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  estimatedCompletion!: Date;

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  generatedAt?: Date | null;

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  expiresAt?: Date | null;

  @Property({ type: 'blob', nullable: true, lazy: true })
  content?: Buffer | null;

  @Property({ type: 'integer', nullable: true })
  size?: number | null;

  @Property({ type: 'text', nullable: true })
  error?: string | null;

  @Property({ type: 'string', length: 40, nullable: true })
  requestedBy?: string | null;

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  createdAt: Date = clock.now();
}
