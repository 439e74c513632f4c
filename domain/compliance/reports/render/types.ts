/**
 * Renderer input. Everything is already resolved to plain strings/numbers so
 * the renderers stay pure: no DB look-ups, no clock reads, no locale.
 * Timestamps are ISO 8601 strings as stored.
 */

import type { ScoreParts } from '../../status/scoring';

export type ReportKind = 'compliance' | 'requirements' | 'audit' | 'summary';

export interface ReportFrameworkSummary {
  id: string;
  /** 0..100 */
  score: number;
  status: string;
  total: number;
  completed: number;
  inProgress: number;
  pending: number;
  /** How the score was reached (docs/scoring.md). */
  scoring?: ScoreParts;
}

export interface ReportRequirementRow {
  id: string;
  title: string;
  framework: string;
  status: string;
  priority: string;
  createdAt: string;
  updatedAt: string;
  validationStatus: string | null;
}

export interface ReportFindingRow {
  id: string;
  title: string;
  framework: string;
  severity: string;
  status: string;
  discoveredAt: string;
  dueDate: string | null;
  resolvedAt: string | null;
}

export interface ReportEvidence {
  findingId: string;
  items: string[];
}

export interface ReportModel {
  reportId: string;
  kind: ReportKind;
  title: string;
  /** `null` when the report spans all frameworks. */
  framework: string | null;
  generatedAt: string;
  period: { start: string | null; end: string | null };
  summary: {
    overallScore: number;
    frameworks: ReportFrameworkSummary[];
  };
  requirements: ReportRequirementRow[];
  findings: ReportFindingRow[];
  evidence?: ReportEvidence[];
}

export type ReportFormat = 'pdf' | 'csv' | 'json';

export const REPORT_FORMATS: readonly ReportFormat[] = Object.freeze(['pdf', 'csv', 'json'] as const);

export function isReportFormat(value: unknown): value is ReportFormat {
  return typeof value === 'string' && (REPORT_FORMATS as readonly string[]).includes(value);
}

/** Content-Type to send with each format. */
export const REPORT_MEDIA_TYPES: Readonly<Record<ReportFormat, string>> = Object.freeze({
  pdf: 'application/pdf',
  csv: 'text/csv; charset=utf-8',
  json: 'application/json; charset=utf-8',
});

export interface RenderOptions {
  /**
   * PDF only: deflate content streams (default `true`). Tests turn it off to
   * inspect the drawn text.
   */
  compress?: boolean;
}
