import { Entity, PrimaryKey, Property } from '@mikro-orm/core';
import type { ReportModel, ReportSignatureRow } from './render/types';
import { clock } from '../../clock';

export type ReportStatus = 'generating' | 'completed' | 'failed';
export type ReportOrigin = 'compliance' | 'dashboard';
export type ReportType = 'compliance' | 'requirements' | 'audit' | 'summary';
export const REPORT_STATUSES: readonly ReportStatus[] = ['generating', 'completed', 'failed'];
/** What a status read says: a completed report whose `expiresAt` has passed reads `expired` (never stored). */
export type ReportViewStatus = ReportStatus | 'expired';
export const REPORT_VIEW_STATUSES: readonly ReportViewStatus[] = [...REPORT_STATUSES, 'expired'];
export const REPORT_TYPES: readonly ReportType[] = ['compliance', 'requirements', 'audit', 'summary'];
export type ReportFormat = 'pdf' | 'json' | 'csv';

export interface ReportRendition {
  sha256: string;
  size: number;
  /** Signatures shown on this rendition (0 for the original). */
  signatures: number;
  renderedAt: string;
}

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

  /** A title given by the requester; otherwise one is derived from the type and framework. */
  @Property({ type: 'string', length: 200, nullable: true })
  title?: string | null;

  /** The requester's name when the report was requested (keys can be renamed or revoked later). */
  @Property({ type: 'string', length: 200, nullable: true })
  requestedByName?: string | null;

  /** SHA-256 (hex) of the file served now: the latest rendition. Published in the report's metadata. */
  @Property({ type: 'string', length: 64, nullable: true })
  sha256?: string | null;

  /** SHA-256 of the file as generated: the stored file, which signatures are bound to (never re-rendered). */
  @Property({ type: 'string', length: 64, nullable: true })
  recordSha256?: string | null;

  /** The model of reports made before issue 37 (signed renditions were rendered from it); no longer written. */
  @Property({ type: 'json', nullable: true, lazy: true })
  model?: ReportModel | null;

  @Property({ type: 'json', default: '[]' })
  signatures: ReportSignatureRow[] = [];

  /** Every file served for this report, oldest first; verify accepts any of them and says which. */
  @Property({ type: 'json', default: '[]' })
  renditions: ReportRendition[] = [];

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  createdAt: Date = clock.now();
}
