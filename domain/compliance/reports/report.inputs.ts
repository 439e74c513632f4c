import { z } from 'zod';
import { SUPPORTED_FRAMEWORKS } from '../catalogue';
import { REPORT_TYPES, type ReportType } from './report.entity';
import { REPORT_FORMATS, type ReportFormat, type ReportSignatureRow } from './render/types';

/** What a report request, a signature and a verification take and answer (report.service.ts). */
export const DAY_MS = 86_400_000;
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/** A timestamp (ISO 8601) or calendar date; a date-only end means the end of that day. */
const instant = z
  .string()
  .max(40)
  .refine((s) => /^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(s) && !Number.isNaN(Date.parse(s)), {
    message: 'must be an ISO 8601 timestamp or a YYYY-MM-DD date',
  });

const calendarDate = z
  .string()
  .regex(DATE_ONLY, 'must be a calendar date YYYY-MM-DD')
  .refine((s) => !Number.isNaN(Date.parse(`${s}T00:00:00Z`)) && new Date(`${s}T00:00:00Z`).toISOString().startsWith(s), { message: 'is not a real date' });

export const toStart = (s: string) => new Date(DATE_ONLY.test(s) ? `${s}T00:00:00.000Z` : s);
export const toEnd = (s: string) => new Date(DATE_ONLY.test(s) ? `${s}T23:59:59.999Z` : s);

export const ComplianceReportRequest = z
  .object({
    framework: z.enum(SUPPORTED_FRAMEWORKS as unknown as [string, ...string[]]),
    format: z.enum(REPORT_FORMATS as unknown as [ReportFormat, ...ReportFormat[]]).default('pdf'),
    includeEvidence: z.boolean().default(false),
    dateRange: z.object({ start: instant, end: instant }).strict().optional(),
    /** Printed as the report's title (any script); derived from the framework when absent. */
    title: z.string().trim().min(1).max(200).optional(),
  })
  .strict()
  .refine((r) => !r.dateRange || toEnd(r.dateRange.end) >= toStart(r.dateRange.start), {
    message: 'dateRange.end must not be before dateRange.start',
    path: ['dateRange', 'end'],
  });
export type ComplianceReportRequest = z.input<typeof ComplianceReportRequest>;

export const DASHBOARD_PERIODS = ['last_7_days', 'last_30_days', 'last_90_days', 'custom'] as const;
export const DashboardReportRequest = z
  .object({
    type: z.enum(REPORT_TYPES as unknown as [ReportType, ...ReportType[]]),
    framework: z.enum(SUPPORTED_FRAMEWORKS as unknown as [string, ...string[]]).optional(),
    period: z.enum(DASHBOARD_PERIODS).default('last_30_days'),
    startDate: calendarDate.optional(),
    endDate: calendarDate.optional(),
    format: z.enum(['pdf', 'json', 'csv']).default('pdf'),
  })
  .strict()
  .superRefine((r, ctx) => {
    if (r.period === 'custom') {
      if (!r.startDate) ctx.addIssue({ code: 'custom', path: ['startDate'], message: 'is required when period is custom' });
      if (!r.endDate) ctx.addIssue({ code: 'custom', path: ['endDate'], message: 'is required when period is custom' });
      if (r.startDate && r.endDate && r.endDate < r.startDate) ctx.addIssue({ code: 'custom', path: ['endDate'], message: 'must not be before startDate' });
    } else {
      for (const f of ['startDate', 'endDate'] as const) {
        if (r[f]) ctx.addIssue({ code: 'custom', path: [f], message: `applies only with period custom (period is ${r.period})` });
      }
    }
  });
export type DashboardReportRequest = z.input<typeof DashboardReportRequest>;

export const SIGNATURE_MEANINGS = ['reviewed', 'approved'] as const;
export const VERIFICATION_MATCHES = ['original', 'signed'] as const;
export const SignReportInput = z.object({ meaning: z.enum(SIGNATURE_MEANINGS) }).strict();
export type SignReportInput = z.input<typeof SignReportInput>;

export interface ReportVerification {
  reportId: string;
  /** True when the bytes are exactly a file this report served. */
  valid: boolean;
  /** SHA-256 and size of the bytes posted. */
  sha256: string;
  size: number;
  /** The published hash: the file served now. */
  expectedSha256: string;
  /** The hash of the file as generated, which signatures are bound to. */
  recordSha256: string;
  matches: (typeof VERIFICATION_MATCHES)[number] | null;
  /** True when the bytes are the file served now. */
  current: boolean;
  /** Signatures bound to the matching file (for a legacy signed rendition: those shown in it). */
  signatures: ReportSignatureRow[];
  message: string;
}

export const PERIOD_DAYS: Record<Exclude<(typeof DASHBOARD_PERIODS)[number], 'custom'>, number> = { last_7_days: 7, last_30_days: 30, last_90_days: 90 };

export interface ReportView {
  reportId: string;
  /** `expired` once a completed report's `expiresAt` has passed: it has no `downloadUrl` then. */
  status: 'generating' | 'completed' | 'failed' | 'expired';
  type: string;
  framework: string | null;
  format: string;
  estimatedCompletion: string;
  generatedAt: string | null;
  expiresAt: string | null;
  downloadUrl: string | null;
  createdAt: string;
  size?: number | null;
  error?: string | null;
  /** Who asked for it: key id and the key's name then. */
  requestedBy?: { keyId: string | null; name: string | null };
  /** SHA-256 (hex) of the file served now; check a copy with `POST …/verify`. */
  sha256?: string | null;
  /** SHA-256 of the file as generated, which signatures are bound to (never re-rendered). */
  recordSha256?: string | null;
  signatures?: ReportSignatureRow[];
}

export interface ReportFile {
  content: Buffer;
  contentType: string;
  filename: string;
}
