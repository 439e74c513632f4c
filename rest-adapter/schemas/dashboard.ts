import { z } from 'zod';
import { HISTORY_METRICS, HISTORY_PERIODS } from '../../domain/compliance/dashboard/history';
import { ComplianceLevel, Instant, list } from './common';
import { ScoreParts } from './compliance';

export const DashboardMetrics = z.object({
  project: z.object({ name: z.string(), version: z.string(), lastUpdated: Instant }),
  requirements: z.object({
    total: z.number().int(),
    completed: z.number().int(),
    inProgress: z.number().int(),
    pending: z.number().int(),
    completionRate: z.number(),
    unassigned: z.number().int().describe("of total, requirements not yet assigned to a framework (in no framework's score)"),
  }),
  compliance: z.object({
    frameworks: z.array(z.object({ name: z.string(), score: z.number(), status: ComplianceLevel, lastAssessed: Instant.nullable(), scoring: ScoreParts })),
    overallScore: z.number(),
  }),
});

export const DashboardStatus = z.object({
  status: z.enum(['healthy', 'degraded']),
  uptime: z.string(),
  lastActivity: Instant.nullable(),
  activeUsers: z.number().int(),
  systemHealth: z.object({ validation: z.string(), compliance: z.string(), monitoring: z.string() }),
  recentActivity: z.array(
    z.object({
      timestamp: Instant,
      type: z.string(),
      user: z.string().describe("the acting key's name then (display only: names are not unique)"),
      userKeyId: z.string().nullable().describe("the acting key's id, `admin` for the configured admin key; null on entries recorded before key ids were kept"),
      description: z.string(),
    }),
  ),
});

export const DashboardHistory = z.object({
  metric: z.enum(HISTORY_METRICS),
  period: z.enum(HISTORY_PERIODS),
  framework: z.string().nullable(),
  dataPoints: z.array(z.object({ timestamp: Instant, value: z.number() })),
  trend: z.enum(['increasing', 'decreasing', 'stable']),
  averageValue: z.number(),
});

export const ReportSignature = z.object({
  signerName: z.string(),
  keyId: z.string(),
  meaning: z.enum(['reviewed', 'approved']),
  signedAt: Instant,
  recordSha256: z.string(),
  signatureHash: z.string(),
});

export const Report = z.object({
  reportId: z.string(),
  status: z.enum(['generating', 'completed', 'failed', 'expired']).describe('`expired` once `expiresAt` has passed: then there is no `downloadUrl`'),
  type: z.string(),
  framework: z.string().nullable(),
  format: z.enum(['pdf', 'csv', 'json']),
  estimatedCompletion: Instant,
  generatedAt: Instant.nullable(),
  expiresAt: Instant.nullable(),
  downloadUrl: z.string().nullable(),
  createdAt: Instant,
  size: z.number().int().nullable().optional(),
  error: z.string().nullable().optional(),
  requestedBy: z.object({ keyId: z.string().nullable(), name: z.string().nullable() }).optional(),
  sha256: z.string().nullable().optional().describe('SHA-256 of the file served now'),
  recordSha256: z.string().nullable().optional().describe('SHA-256 of the file as generated, which signatures are bound to (the file is never re-rendered)'),
  signatures: z.array(ReportSignature).optional(),
});
export const ReportList = list(Report);
export const SignedReport = Report.extend({ signature: ReportSignature });

export const ReportVerification = z.object({
  reportId: z.string(),
  valid: z.boolean(),
  sha256: z.string(),
  size: z.number().int(),
  expectedSha256: z.string(),
  recordSha256: z.string(),
  matches: z.enum(['original', 'signed']).nullable(),
  current: z.boolean(),
  signatures: z.array(ReportSignature),
  message: z.string(),
});

/** A report downloaded as JSON (`format: json`): the model the PDF and CSV are rendered from. */
export const ReportDocument = z.object({
  reportId: z.string(),
  kind: z.string(),
  title: z.string(),
  framework: z.string().nullable(),
  generatedAt: Instant,
  period: z.object({ start: z.string().nullable(), end: z.string().nullable() }),
  summary: z.object({ overallScore: z.number(), frameworks: z.array(z.record(z.string(), z.unknown())) }),
  requirements: z.array(z.record(z.string(), z.unknown())),
  findings: z.array(z.record(z.string(), z.unknown())),
  evidence: z.array(z.object({ findingId: z.string(), items: z.array(z.string()) })).optional(),
});
