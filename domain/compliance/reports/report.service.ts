import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { actorOf, SYSTEM_ACTOR, type AuditTrail } from '../../audit/audit-trail.service';
import { requirePermission } from '../../auth/auth.service';
import type { Permission } from '../../auth/permissions';
import type { DomainContext } from '../../context';
import { DomainError, notFound } from '../../errors';
import { newId } from '../../ids';
import type { JobQueue, RunningJob } from '../../jobs/job-queue';
import { parseInput } from '../../validation';
import type { ComplianceEventPublisher } from '../events';
import { precheckFramework } from '../frameworks.service';
import { SUPPORTED_FRAMEWORKS } from '../catalogue';
import { REPORT_MEDIA_TYPES, renderReport } from './render';
import { buildReportModel } from './report-model';
import { Report, type ReportOrigin } from './report.entity';
import { clock } from '../../clock';

export const REPORT_JOB = 'report.generate';

export interface ReportSettings {
  /** How long a finished report can be downloaded. */
  ttlMs: number;
  /** What `estimatedCompletion` promises. */
  estimateMs: number;
}

export interface ReportView {
  reportId: string;
  status: 'generating' | 'completed' | 'failed';
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
}

export interface ReportFile {
  content: Buffer;
  contentType: string;
  filename: string;
}

const DAY_MS = 86_400_000;
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

const toStart = (s: string) => new Date(DATE_ONLY.test(s) ? `${s}T00:00:00.000Z` : s);
const toEnd = (s: string) => new Date(DATE_ONLY.test(s) ? `${s}T23:59:59.999Z` : s);

export const ComplianceReportRequest = z
  .object({
    framework: z.enum(SUPPORTED_FRAMEWORKS as unknown as [string, ...string[]]),
    format: z.enum(['pdf', 'csv', 'json']).default('pdf'),
    includeEvidence: z.boolean().default(false),
    dateRange: z.object({ start: instant, end: instant }).strict().optional(),
  })
  .strict()
  .refine((r) => !r.dateRange || toEnd(r.dateRange.end) >= toStart(r.dateRange.start), { message: 'dateRange.end must not be before dateRange.start', path: ['dateRange', 'end'] });
export type ComplianceReportRequest = z.input<typeof ComplianceReportRequest>;

export const DASHBOARD_PERIODS = ['last_7_days', 'last_30_days', 'last_90_days', 'custom'] as const;
export const DashboardReportRequest = z
  .object({
    type: z.enum(['compliance', 'requirements', 'audit', 'summary']),
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

const PERIOD_DAYS: Record<Exclude<(typeof DASHBOARD_PERIODS)[number], 'custom'>, number> = { last_7_days: 7, last_30_days: 30, last_90_days: 90 };

/**
 * Compliance and dashboard reports. A request records the report as `generating` and enqueues its
 * generation job in the same transaction; the job gathers the data, renders the file, stores it and
 * stages `report.completed`. A finished file can be downloaded until `expiresAt`, then it is gone.
 */
export class ReportService {
  readonly settings: ReportSettings;

  constructor(
    private readonly rootEm: EntityManager,
    private readonly jobs: JobQueue,
    private readonly events: ComplianceEventPublisher,
    private readonly auditTrail: AuditTrail,
    settings: Partial<ReportSettings> = {},
  ) {
    this.settings = { ttlMs: DAY_MS, estimateMs: 5000, ...settings };
    jobs.register(REPORT_JOB, (job) => this.generate(job));
  }

  async requestCompliance(ctx: DomainContext, raw: unknown): Promise<ReportView> {
    const principal = requirePermission(ctx, 'write:compliance');
    precheckFramework(raw);
    const input = parseInput(ComplianceReportRequest, raw);
    return this.create(ctx, {
      id: newId('rpt'),
      origin: 'compliance',
      type: 'compliance',
      framework: input.framework,
      format: input.format,
      includeEvidence: input.includeEvidence,
      period: null,
      rangeStart: input.dateRange ? toStart(input.dateRange.start) : null,
      rangeEnd: input.dateRange ? toEnd(input.dateRange.end) : null,
      requestedBy: principal.keyId,
    });
  }

  async requestDashboard(ctx: DomainContext, raw: unknown): Promise<ReportView> {
    const principal = requirePermission(ctx, 'write:dashboard');
    precheckFramework(raw);
    const input = parseInput(DashboardReportRequest, raw);
    const now = clock.now();
    const [rangeStart, rangeEnd] =
      input.period === 'custom' ? [toStart(input.startDate!), toEnd(input.endDate!)] : [new Date(now.getTime() - PERIOD_DAYS[input.period] * DAY_MS), now];
    return this.create(ctx, {
      id: newId('dash_rpt'),
      origin: 'dashboard',
      type: input.type,
      framework: input.framework ?? null,
      format: input.format,
      includeEvidence: input.type === 'audit' || input.type === 'compliance',
      period: input.period,
      rangeStart,
      rangeEnd,
      requestedBy: principal.keyId,
    });
  }

  getCompliance(ctx: DomainContext, reportId: string) {
    return this.get(ctx, reportId, 'compliance');
  }

  getDashboard(ctx: DomainContext, reportId: string) {
    return this.get(ctx, reportId, 'dashboard');
  }

  /** Recent dashboard reports, newest first. */
  async listDashboard(ctx: DomainContext, raw: { limit?: unknown } = {}): Promise<{ data: ReportView[] }> {
    requirePermission(ctx, 'read:dashboard');
    const { limit } = parseInput(z.object({ limit: z.coerce.number().int().min(1).max(100).default(20) }), { limit: raw.limit ?? undefined });
    const rows = await ctx.em.find(Report, { origin: 'dashboard' }, { orderBy: { createdAt: 'desc', id: 'desc' }, limit });
    return { data: rows.map((r) => this.view(r)) };
  }

  downloadCompliance(ctx: DomainContext, reportId: string) {
    return this.download(ctx, reportId, 'compliance');
  }

  downloadDashboard(ctx: DomainContext, reportId: string) {
    return this.download(ctx, reportId, 'dashboard');
  }

  /** Frees the bytes of expired reports (their rows stay, so a download answers 410 rather than 404). */
  async purgeExpired(): Promise<number> {
    const res = await this.rootEm
      .getConnection()
      .execute<{ affectedRows: number }>(`update reports set content = null where expires_at < ? and content is not null`, [clock.now()], 'run');
    return res.affectedRows ?? 0;
  }

  private static readPermission(origin: ReportOrigin): Permission {
    return origin === 'compliance' ? 'read:compliance' : 'read:dashboard';
  }

  private async create(ctx: DomainContext, init: Omit<Report, 'status' | 'estimatedCompletion' | 'createdAt'>): Promise<ReportView> {
    const report = await ctx.em.transactional(async (tx) => {
      const row = tx.create(Report, {
        ...init,
        status: 'generating',
        estimatedCompletion: new Date(clock.nowMs() + this.settings.estimateMs),
        createdAt: clock.now(),
      });
      this.jobs.enqueue(tx as EntityManager, REPORT_JOB, { reportId: row.id }, { maxAttempts: 3 });
      this.auditTrail.record(tx as EntityManager, actorOf(ctx), { action: 'report.request', entityType: 'report', entityId: row.id }, null, {
        origin: row.origin,
        type: row.type,
        framework: row.framework ?? null,
        format: row.format,
        includeEvidence: row.includeEvidence,
        period: row.period ?? null,
        rangeStart: row.rangeStart?.toISOString() ?? null,
        rangeEnd: row.rangeEnd?.toISOString() ?? null,
        status: row.status,
      });
      return row;
    });
    this.jobs.kick();
    return this.view(report);
  }

  private async get(ctx: DomainContext, reportId: string, origin: ReportOrigin): Promise<ReportView> {
    requirePermission(ctx, ReportService.readPermission(origin));
    return this.view(await this.find(ctx.em, reportId, origin));
  }

  private async find(em: EntityManager, reportId: string, origin: ReportOrigin): Promise<Report> {
    const row = typeof reportId === 'string' && reportId.length <= 48 ? await em.findOne(Report, { id: reportId, origin }) : null;
    if (!row) throw notFound('Report', String(reportId).slice(0, 60));
    return row;
  }

  private async download(ctx: DomainContext, reportId: string, origin: ReportOrigin): Promise<ReportFile> {
    requirePermission(ctx, ReportService.readPermission(origin));
    const row = await this.find(ctx.em, reportId, origin);
    if (row.status === 'failed') throw new DomainError('CONFLICT', `Report '${row.id}' failed to generate; request a new one`, { details: { reportId: row.id, status: row.status } });
    if (row.status !== 'completed') {
      throw new DomainError('CONFLICT', `Report '${row.id}' is still generating`, {
        details: { reportId: row.id, status: row.status, estimatedCompletion: row.estimatedCompletion.toISOString() },
        headers: { 'Retry-After': String(Math.max(1, Math.ceil((row.estimatedCompletion.getTime() - clock.nowMs()) / 1000))) },
      });
    }
    if (row.expiresAt && row.expiresAt.getTime() <= clock.nowMs()) {
      throw new DomainError('GONE', `Report '${row.id}' expired at ${row.expiresAt.toISOString()}; request a new one`, {
        details: { reportId: row.id, expiresAt: row.expiresAt.toISOString() },
      });
    }
    await ctx.em.populate(row, ['content']);
    if (!row.content) throw new DomainError('GONE', `Report '${row.id}' is no longer available`, { details: { reportId: row.id } });
    return { content: Buffer.from(row.content), contentType: REPORT_MEDIA_TYPES[row.format], filename: `${row.id}.${row.format}` };
  }

  private view(r: Report): ReportView {
    const base = r.origin === 'compliance' ? '/v1/compliance/reports' : '/v1/dashboard/reports';
    return {
      reportId: r.id,
      status: r.status,
      type: r.type,
      framework: r.framework ?? null,
      format: r.format,
      estimatedCompletion: r.estimatedCompletion.toISOString(),
      generatedAt: r.generatedAt?.toISOString() ?? null,
      expiresAt: r.expiresAt?.toISOString() ?? null,
      downloadUrl: r.status === 'completed' ? `${base}/${r.id}/download` : null,
      createdAt: r.createdAt.toISOString(),
      ...(r.status === 'completed' ? { size: r.size ?? null } : {}),
      ...(r.status === 'failed' ? { error: 'Report generation failed; request a new one' } : {}),
    };
  }

  /** The job: idempotent, because a job whose lease lapsed may run again. */
  private async generate(job: RunningJob): Promise<void> {
    const reportId = String(job.payload.reportId);
    const em = this.rootEm.fork() as EntityManager;
    const report = await em.findOne(Report, reportId);
    if (!report || report.status !== 'generating') return;
    try {
      const generatedAt = clock.now();
      const model = await buildReportModel(em, {
        reportId: report.id,
        kind: report.type,
        framework: report.framework ?? null,
        rangeStart: report.rangeStart ?? null,
        rangeEnd: report.rangeEnd ?? null,
        includeEvidence: report.includeEvidence,
        generatedAt,
      });
      const content = await renderReport(report.format, model);
      const expiresAt = new Date(generatedAt.getTime() + this.settings.ttlMs);
      const staged = await em.transactional(async (tx) => {
        const updated = await tx.nativeUpdate(Report, { id: report.id, status: 'generating' }, { status: 'completed', content, size: content.length, generatedAt, expiresAt });
        if (!updated) return [];
        this.auditTrail.record(
          tx as EntityManager,
          SYSTEM_ACTOR,
          { action: 'report.complete', entityType: 'report', entityId: report.id },
          { status: 'generating' },
          { status: 'completed', size: content.length, generatedAt: generatedAt.toISOString(), expiresAt: expiresAt.toISOString() },
        );
        const base = report.origin === 'compliance' ? '/v1/compliance/reports' : '/v1/dashboard/reports';
        return [
          await this.events.stage(tx as EntityManager, 'report.completed', {
            reportId: report.id,
            origin: report.origin,
            type: report.type,
            framework: report.framework ?? null,
            format: report.format,
            size: content.length,
            generatedAt: generatedAt.toISOString(),
            expiresAt: expiresAt.toISOString(),
            downloadUrl: `${base}/${report.id}/download`,
          }),
        ];
      });
      await this.events.publish(staged);
    } catch (err) {
      if (job.attempt >= job.maxAttempts) {
        await em.transactional(async (tx) => {
          const error = err instanceof Error ? err.message.slice(0, 500) : 'generation failed';
          const failed = await tx.nativeUpdate(Report, { id: reportId, status: 'generating' }, { status: 'failed', error });
          if (failed) this.auditTrail.record(tx as EntityManager, SYSTEM_ACTOR, { action: 'report.fail', entityType: 'report', entityId: reportId }, { status: 'generating' }, { status: 'failed', error });
        });
      }
      throw err;
    }
  }
}
