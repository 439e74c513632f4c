/**
 * Renderer input. Everything is already resolved to plain strings/numbers so
 * the renderers stay pure: no DB look-ups, no clock reads, no locale.
 * Timestamps are ISO 8601 strings as stored.
 */

import type { ScoreParts } from '../../status/scoring';
import type { TraceabilityMatrix } from '../../traceability/traceability.service';

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
  description?: string | null;
  acceptanceCriteria?: string[];
  /** Catalogue clauses (sections) of its framework the requirement maps to. */
  clauses?: string[];
  validationScore?: number | null;
  validatedAt?: string | null;
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
  description?: string | null;
  requirementId?: string | null;
  resolution?: string | null;
  /** Present when the report includes evidence. */
  evidence?: string[];
}

/** An electronic signature (21 CFR 11.50): who, when, what it means, and the record it is bound to. */
export interface ReportSignatureRow {
  signerName: string;
  keyId: string;
  meaning: 'reviewed' | 'approved';
  signedAt: string;
  /** SHA-256 of the stored report file the signer approved. */
  recordSha256: string;
  /** SHA-256 over the signature's own fields and the record hash: the binding. */
  signatureHash: string;
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
  /** The organisation the records belong to (`ORGANISATION_NAME`). */
  organisation?: string;
  requestedBy?: { keyId: string | null; name: string } | null;
  requestedAt?: string | null;
  scope?: { frameworks: string[]; includeEvidence: boolean; basis: string };
  /** Compliance reports of one framework: the traceability matrix as a section. */
  traceability?: TraceabilityMatrix | null;
  /** Signatures, on the signed renditions of a report. */
  signatures?: ReportSignatureRow[];
  /** On signed renditions: SHA-256 of the unsigned original, the record the signatures are bound to. */
  recordSha256?: string | null;
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
  /** PDF only: how a reader signs the report and checks a copy, printed in its approval block. */
  instructions?: { verify: string; sign: string };
}
