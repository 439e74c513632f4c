import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { actorOf, SYSTEM_ACTOR, type AuditTrail } from '../../audit/audit-trail.service';
import type { Permission } from '../../auth/permissions';
import { AuthService, principalOfKeyId } from '../../auth/auth.service';
import { can, requirePermission, type Principal } from '../../auth/principal';
import { ownsReport } from '../event-access';
import type { DomainContext } from '../../context';
import { DomainError, notFound } from '../../errors';
import { newId } from '../../ids';
import type { JobQueue, RunningJob } from '../../jobs/job-queue';
import { decodeBase64, parseInput } from '../../validation';
import type { ComplianceEventPublisher } from '../events';
import { precheckFramework } from '../frameworks.service';
import { SUPPORTED_FRAMEWORKS } from '../catalogue';
import { REPORT_MEDIA_TYPES, renderReport } from './render';
import { buildReportModel } from './report-model';
import { Report, REPORT_TYPES, type ReportOrigin, type ReportRendition, type ReportType } from './report.entity';
import { REPORT_FORMATS, type ReportFormat, type ReportSignatureRow } from './render/types';
import { sha256Of, signatureHashOf } from './integrity';
import { clock } from '../../clock';
import type { Links } from '../../links';

export const REPORT_JOB = 'report.generate';

export interface ReportSettings {
  /** How long a finished report can be downloaded. */
  ttlMs: number;
  /** What `estimatedCompletion` promises. */
  estimateMs: number;
  /** Printed on every report (`ORGANISATION_NAME`). */
  organisation?: string;
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
  /** Who asked for it: key id and the key's name then. */
  requestedBy?: { keyId: string | null; name: string | null };
  /** SHA-256 (hex) of the file served now; check a copy with `POST …/verify`. */
  sha256?: string | null;
  /** SHA-256 of the unsigned original, which signatures are bound to. */
  recordSha256?: string | null;
  signatures?: ReportSignatureRow[];
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
    format: z.enum(REPORT_FORMATS as unknown as [ReportFormat, ...ReportFormat[]]).default('pdf'),
    includeEvidence: z.boolean().default(false),
    dateRange: z.object({ start: instant, end: instant }).strict().optional(),
    /** Printed as the report's title (any script); derived from the framework when absent. */
    title: z.string().trim().min(1).max(200).optional(),
  })
  .strict()
  .refine((r) => !r.dateRange || toEnd(r.dateRange.end) >= toStart(r.dateRange.start), { message: 'dateRange.end must not be before dateRange.start', path: ['dateRange', 'end'] });
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
  /** The unsigned original's hash, which signatures are bound to. */
  recordSha256: string;
  matches: (typeof VERIFICATION_MATCHES)[number] | null;
  /** True when the bytes are the latest rendition. */
  current: boolean;
  /** Signatures shown in the matching rendition. */
  signatures: ReportSignatureRow[];
  message: string;
}

const PERIOD_DAYS: Record<Exclude<(typeof DASHBOARD_PERIODS)[number], 'custom'>, number> = { last_7_days: 7, last_30_days: 30, last_90_days: 90 };

/** A report that asks for what the key may not read is refused before anything is queued. */
function requireReportContent(principal: Principal, permission: Permission, field: string) {
  if (can(principal, permission)) return;
  throw new DomainError('AUTHORIZATION_ERROR', `This report would show audit findings and their evidence, which need the '${permission}' permission this key lacks`, {
    details: { required: permission },
    fields: [{ field, message: `needs ${permission}` }],
  });
}

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
    private readonly links: Pick<Links, 'reportDownload' | 'reportInstructions'>,
    settings: Partial<ReportSettings> = {},
  ) {
    this.settings = { ttlMs: DAY_MS, estimateMs: 5000, ...settings };
    jobs.register(REPORT_JOB, (job) => this.generate(job));
  }

  async requestCompliance(ctx: DomainContext, raw: unknown): Promise<ReportView> {
    const principal = requirePermission(ctx, 'write:compliance');
    precheckFramework(raw);
    const input = parseInput(ComplianceReportRequest, raw);
    // Asking for evidence is asking to read findings: refused outright, like a read of the findings.
    if (input.includeEvidence) requireReportContent(principal, 'read:audits', 'includeEvidence');
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
      requestedByName: principal.name,
      title: input.title ?? null,
    });
  }

  async requestDashboard(ctx: DomainContext, raw: unknown): Promise<ReportView> {
    const principal = requirePermission(ctx, 'write:dashboard');
    precheckFramework(raw);
    const input = parseInput(DashboardReportRequest, raw);
    // An audit report is nothing but findings and their evidence.
    if (input.type === 'audit') requireReportContent(principal, 'read:audits', 'type');
    const now = clock.now();
    const [rangeStart, rangeEnd] =
      input.period === 'custom' ? [toStart(input.startDate!), toEnd(input.endDate!)] : [new Date(now.getTime() - PERIOD_DAYS[input.period] * DAY_MS), now];
    return this.create(ctx, {
      id: newId('dash_rpt'),
      origin: 'dashboard',
      type: input.type,
      framework: input.framework ?? null,
      format: input.format,
      // A compliance-type report lists findings with evidence only for keys that may read them.
      includeEvidence: input.type === 'audit' || (input.type === 'compliance' && can(principal, 'read:audits')),
      period: input.period,
      rangeStart,
      rangeEnd,
      requestedBy: principal.keyId,
      requestedByName: principal.name,
    });
  }

  getCompliance(ctx: DomainContext, reportId: string) {
    return this.get(ctx, reportId, 'compliance');
  }

  getDashboard(ctx: DomainContext, reportId: string) {
    return this.get(ctx, reportId, 'dashboard');
  }

  /** Recent dashboard reports, newest first: the caller's own (the admin sees every key's). */
  async listDashboard(ctx: DomainContext, raw: { limit?: unknown } = {}): Promise<{ data: ReportView[] }> {
    const principal = requirePermission(ctx, 'read:dashboard');
    const { limit } = parseInput(z.object({ limit: z.coerce.number().int().min(1).max(100).default(20) }), { limit: raw.limit ?? undefined });
    const rows = await ctx.em.find(Report, { origin: 'dashboard', ...(principal.isAdmin ? {} : { requestedBy: principal.keyId }) }, { orderBy: { createdAt: 'desc', id: 'desc' }, limit });
    return { data: rows.map((r) => this.view(r)) };
  }

  downloadCompliance(ctx: DomainContext, reportId: string) {
    return this.download(ctx, reportId, 'compliance');
  }

  downloadDashboard(ctx: DomainContext, reportId: string) {
    return this.download(ctx, reportId, 'dashboard');
  }

  /**
   * Is this file (the raw bytes) a file this report
   * served? Any rendition counts (the original, or a signed one), and the answer says which. A
   * mismatch is a result (`valid: false`), not an error. Works after the file expired: the hashes stay.
   */
  async verifyCompliance(ctx: DomainContext, reportId: string, file: Buffer | { base64: unknown }): Promise<ReportVerification> {
    requirePermission(ctx, 'read:compliance');
    const bytes = Buffer.isBuffer(file) ? file : decodeBase64(file?.base64, 'contentBase64');
    const row = await this.find(ctx.em, reportId, 'compliance');
    if (row.status !== 'completed' || !row.sha256) {
      throw new DomainError('CONFLICT', `Report '${row.id}' has no file to compare with (status ${row.status})`, { details: { reportId: row.id, status: row.status } });
    }
    const sha256 = sha256Of(bytes);
    const renditions = row.renditions?.length ? row.renditions : [{ sha256: row.sha256, size: row.size ?? 0, signatures: 0, renderedAt: row.generatedAt?.toISOString() ?? '' }];
    const match = renditions.find((r) => r.sha256 === sha256) ?? null;
    const current = match?.sha256 === row.sha256;
    return {
      reportId: row.id,
      valid: !!match,
      sha256,
      size: bytes.length,
      expectedSha256: row.sha256,
      recordSha256: row.recordSha256 ?? row.sha256,
      matches: match ? (match.signatures === 0 ? 'original' : 'signed') : null,
      current: !!match && current,
      signatures: match ? (row.signatures ?? []).slice(0, match.signatures) : [],
      message: match
        ? `The file is ${match.signatures === 0 ? 'the report as generated' : `the report with ${match.signatures} signature${match.signatures === 1 ? '' : 's'}`}${current ? '' : ' (a later rendition has more signatures)'}; not one byte differs.`
        : 'The file does not match any file of this report: it was altered, or it is another report.',
    };
  }

  /**
   * The caller's key signs a completed report with a
   * stated meaning (21 CFR 11.50). The signature is bound to the SHA-256 of the unsigned original
   * (11.70) and recorded in the audit trail; the file is rendered again from the same model with every
   * signature in its approval block, and that rendition's hash becomes the published `sha256`.
   */
  async signCompliance(ctx: DomainContext, reportId: string, raw: unknown): Promise<ReportView & { signature: ReportSignatureRow }> {
    const principal = requirePermission(ctx, 'sign:reports');
    const input = parseInput(SignReportInput, raw ?? {});
    const result = await ctx.em.transactional(async (tx) => {
      const em = tx as EntityManager;
      const row = typeof reportId === 'string' && reportId.length <= 48 ? await em.findOne(Report, { id: reportId, origin: 'compliance' }, { lockMode: LockMode.PESSIMISTIC_WRITE, populate: ['model'] }) : null;
      if (!row) throw notFound('Report', String(reportId).slice(0, 60));
      if (row.status !== 'completed' || !row.recordSha256) {
        throw new DomainError('CONFLICT', `Report '${row.id}' is ${row.status}; only a completed report can be signed`, { details: { reportId: row.id, status: row.status } });
      }
      if (row.expiresAt && row.expiresAt.getTime() <= clock.nowMs()) {
        throw new DomainError('GONE', `Report '${row.id}' expired at ${row.expiresAt.toISOString()}; request a new one`, { details: { reportId: row.id, expiresAt: row.expiresAt.toISOString() } });
      }
      if (!row.model) throw new DomainError('CONFLICT', `Report '${row.id}' was generated before reports could be signed; request a new one`, { details: { reportId: row.id } });
      const signatures = row.signatures ?? [];
      if (signatures.some((x) => x.keyId === principal.keyId && x.meaning === input.meaning)) {
        throw new DomainError('CONFLICT', `This key has already signed report '${row.id}' as ${input.meaning}`, { details: { reportId: row.id, meaning: input.meaning } });
      }
      const unsigned = { signerName: principal.name, keyId: principal.keyId, meaning: input.meaning, signedAt: clock.now().toISOString(), recordSha256: row.recordSha256 };
      const signature: ReportSignatureRow = { ...unsigned, signatureHash: signatureHashOf(row.id, unsigned) };
      const nextSignatures = [...signatures, signature];
      const content = await renderReport(row.format, { ...row.model, signatures: nextSignatures, recordSha256: row.recordSha256 }, { instructions: this.links.reportInstructions() });
      const sha256 = sha256Of(content);
      const previous = { sha256: row.sha256 ?? null, signatures: signatures.length };
      row.signatures = nextSignatures;
      row.renditions = [...(row.renditions ?? []), { sha256, size: content.length, signatures: nextSignatures.length, renderedAt: signature.signedAt }];
      row.content = content;
      row.size = content.length;
      row.sha256 = sha256;
      this.auditTrail.record(em, actorOf(ctx), { action: 'report.sign', entityType: 'report', entityId: row.id }, previous, {
        sha256,
        signatures: nextSignatures.length,
        signature: { ...signature },
      });
      return { row, signature };
    });
    return { ...this.view(result.row), signature: result.signature };
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

  private async create(ctx: DomainContext, init: Omit<Report, 'status' | 'estimatedCompletion' | 'createdAt' | 'signatures' | 'renditions'>): Promise<ReportView> {
    const report = await ctx.em.transactional(async (tx) => {
      const row = tx.create(Report, {
        ...init,
        status: 'generating',
        estimatedCompletion: new Date(clock.nowMs() + this.settings.estimateMs),
        createdAt: clock.now(),
        signatures: [],
        renditions: [],
      });
      this.jobs.enqueue(tx as EntityManager, REPORT_JOB, { reportId: row.id }, { maxAttempts: 3 });
      this.auditTrail.record(tx as EntityManager, actorOf(ctx), { action: 'report.request', entityType: 'report', entityId: row.id }, null, {
        origin: row.origin,
        type: row.type,
        framework: row.framework ?? null,
        format: row.format,
        title: row.title ?? null,
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
    const principal = requirePermission(ctx, ReportService.readPermission(origin));
    return this.view(await this.find(ctx.em, reportId, origin, principal));
  }

  /** With an `owner`, another key's report is not found (404, as if it did not exist), the admin's view excepted. */
  private async find(em: EntityManager, reportId: string, origin: ReportOrigin, owner?: Principal): Promise<Report> {
    const row = typeof reportId === 'string' && reportId.length <= 48 ? await em.findOne(Report, { id: reportId, origin }) : null;
    if (!row || (owner && !ownsReport(owner, row.requestedBy))) throw notFound('Report', String(reportId).slice(0, 60));
    return row;
  }

  private async download(ctx: DomainContext, reportId: string, origin: ReportOrigin): Promise<ReportFile> {
    const principal = requirePermission(ctx, ReportService.readPermission(origin));
    const row = await this.find(ctx.em, reportId, origin, principal);
    if (row.status === 'failed') throw new DomainError('CONFLICT', `Report '${row.id}' failed to generate; request a new one`, { details: { reportId: row.id, status: row.status } });
    if (row.status !== 'completed') {
      throw new DomainError('CONFLICT', `Report '${row.id}' is still generating`, {
        details: { reportId: row.id, status: row.status, estimatedCompletion: row.estimatedCompletion.toISOString() },
        retryAfterSeconds: Math.max(1, Math.ceil((row.estimatedCompletion.getTime() - clock.nowMs()) / 1000)),
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
    return {
      reportId: r.id,
      status: r.status,
      type: r.type,
      framework: r.framework ?? null,
      format: r.format,
      estimatedCompletion: r.estimatedCompletion.toISOString(),
      generatedAt: r.generatedAt?.toISOString() ?? null,
      expiresAt: r.expiresAt?.toISOString() ?? null,
      downloadUrl: r.status === 'completed' ? this.links.reportDownload(r.origin, r.id) : null,
      createdAt: r.createdAt.toISOString(),
      ...(r.status === 'completed' ? { size: r.size ?? null } : {}),
      ...(r.status === 'failed' ? { error: 'Report generation failed; request a new one' } : {}),
      requestedBy: { keyId: r.requestedBy ?? null, name: r.requestedByName ?? null },
      sha256: r.sha256 ?? null,
      recordSha256: r.recordSha256 ?? null,
      signatures: [...(r.signatures ?? [])],
    };
  }

  /** The job: idempotent, because a job whose lease lapsed may run again. */
  private async generate(job: RunningJob): Promise<void> {
    const reportId = String(job.payload.reportId);
    const em = this.rootEm.fork() as EntityManager;
    const report = await em.findOne(Report, reportId);
    if (!report || report.status !== 'generating') return;
    // The content is what the requester may read now; a requester whose key is gone gets no report.
    const requester = report.requestedBy ? await principalOfKeyId(em, report.requestedBy) : { principal: AuthService.adminPrincipal() };
    if (!requester.principal) {
      const error = `the requesting key is no longer valid (${requester.reason})`;
      await em.transactional(async (tx) => {
        const failed = await tx.nativeUpdate(Report, { id: reportId, status: 'generating' }, { status: 'failed', error });
        if (failed) this.auditTrail.record(tx as EntityManager, SYSTEM_ACTOR, { action: 'report.fail', entityType: 'report', entityId: reportId }, { status: 'generating' }, { status: 'failed', error });
      });
      return;
    }
    const readsFindings = can(requester.principal, 'read:audits');
    try {
      const generatedAt = clock.now();
      const model = await buildReportModel(em, {
        reportId: report.id,
        kind: report.type,
        framework: report.framework ?? null,
        rangeStart: report.rangeStart ?? null,
        rangeEnd: report.rangeEnd ?? null,
        includeEvidence: report.includeEvidence && readsFindings,
        includeFindings: readsFindings,
        generatedAt,
        organisation: this.settings.organisation,
        requestedBy: report.requestedBy ? { keyId: report.requestedBy, name: report.requestedByName ?? report.requestedBy } : null,
        requestedAt: report.createdAt,
        title: report.title ?? null,
      });
      const content = await renderReport(report.format, model, { instructions: this.links.reportInstructions() });
      const sha256 = sha256Of(content);
      const renditions: ReportRendition[] = [{ sha256, size: content.length, signatures: 0, renderedAt: generatedAt.toISOString() }];
      const expiresAt = new Date(generatedAt.getTime() + this.settings.ttlMs);
      const staged = await em.transactional(async (tx) => {
        const updated = await tx.nativeUpdate(
          Report,
          { id: report.id, status: 'generating' },
          { status: 'completed', content, size: content.length, generatedAt, expiresAt, sha256, recordSha256: sha256, model, renditions },
        );
        if (!updated) return [];
        this.auditTrail.record(
          tx as EntityManager,
          SYSTEM_ACTOR,
          { action: 'report.complete', entityType: 'report', entityId: report.id },
          { status: 'generating' },
          { status: 'completed', size: content.length, sha256, generatedAt: generatedAt.toISOString(), expiresAt: expiresAt.toISOString() },
        );
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
            downloadUrl: this.links.reportDownload(report.origin, report.id),
            // Only the requester (and the admin) receive it: reports are owned.
            requestedBy: { keyId: report.requestedBy ?? null, name: report.requestedByName ?? null },
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
