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
import { JobDeferred, type JobQueue, type RunningJob } from '../../jobs/job-queue';
import type { HeavyWork } from '../../jobs/heavy-work';
import { workerRenderer, type ReportRenderer } from './render-off-thread';
import { decodeBase64, parseInput } from '../../validation';
import type { ComplianceEventPublisher } from '../events';
import { precheckFramework } from '../frameworks.service';
import { REPORT_MEDIA_TYPES } from './render';
import { buildReportModel } from './report-model';
import { Report, type ReportOrigin, type ReportRendition } from './report.entity';
import type { ReportSignatureRow } from './render/types';
import { sha256Of } from './integrity';
import { newSignature, recordSignature, storedFileSha256, verification } from './report-signing';
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
  /** Where files are rendered: worker threads (render-off-thread.ts) unless given. */
  renderer?: ReportRenderer;
  /** Report slots across instances (domain/jobs/heavy-work.ts); none: no cap beyond the job queue's. */
  heavy?: HeavyWork;
}

export * from './report.inputs';
import {
  ComplianceReportRequest,
  DashboardReportRequest,
  DAY_MS,
  PERIOD_DAYS,
  SignReportInput,
  SIGNATURE_MEANINGS,
  toEnd,
  toStart,
  type ReportVerification,
  type ReportView,
  type ReportFile,
} from './report.inputs';

/** A report that asks for what the key may not read is refused before anything is queued. */
function requireReportContent(principal: Principal, permission: Permission, field: string) {
  if (can(principal, permission)) return;
  throw new DomainError(
    'AUTHORIZATION_ERROR',
    `This report would show audit findings and their evidence, which need the '${permission}' permission this key lacks`,
    {
      details: { required: permission },
      fields: [{ field, message: `needs ${permission}` }],
    },
  );
}

/**
 * Compliance and dashboard reports. A request records the report as `generating` and enqueues its
 * generation job in the same transaction; the job gathers the data, renders the file, stores it and
 * stages `report.completed`. A finished file can be downloaded until `expiresAt`, then it is gone.
 */
export class ReportService {
  readonly settings: ReportSettings;
  private readonly render: ReportRenderer;

  constructor(
    private readonly rootEm: EntityManager,
    private readonly jobs: JobQueue,
    private readonly events: ComplianceEventPublisher,
    private readonly auditTrail: AuditTrail,
    private readonly links: Pick<Links, 'reportDownload' | 'reportInstructions'>,
    settings: Partial<ReportSettings> = {},
  ) {
    this.settings = { ttlMs: DAY_MS, estimateMs: 5000, ...settings };
    this.render = this.settings.renderer ?? workerRenderer({ concurrency: 2 });
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

  /** `signatures: false` (a GraphQL selection without them): that JSON column is not read. */
  getCompliance = (ctx: DomainContext, reportId: string, opts: ReportReadOptions = {}) => this.get(ctx, reportId, 'compliance', opts);
  getDashboard = (ctx: DomainContext, reportId: string, opts: ReportReadOptions = {}) => this.get(ctx, reportId, 'dashboard', opts);

  /** Recent dashboard reports, newest first: the caller's own (the admin sees every key's). */
  async listDashboard(ctx: DomainContext, raw: { limit?: unknown } = {}, opts: ReportReadOptions = {}): Promise<{ data: ReportView[] }> {
    const principal = requirePermission(ctx, 'read:dashboard');
    const { limit } = parseInput(z.object({ limit: z.coerce.number().int().min(1).max(100).default(20) }), { limit: raw.limit ?? undefined });
    const rows = await ctx.em.find(
      Report,
      { origin: 'dashboard', ...(principal.isAdmin ? {} : { requestedBy: principal.keyId }) },
      { orderBy: { createdAt: 'desc', id: 'desc' }, limit, exclude: unread(opts) },
    );
    return { data: rows.map((r) => this.view(r as Report)) };
  }

  downloadCompliance(ctx: DomainContext, reportId: string) {
    return this.download(ctx, reportId, 'compliance');
  }

  downloadDashboard(ctx: DomainContext, reportId: string) {
    return this.download(ctx, reportId, 'dashboard');
  }

  /**
   * Is this file (the raw bytes) a file this report served? The answer says which rendition and the
   * signatures bound to it. A mismatch is a result (`valid: false`), not an error. Works after the
   * file expired: the hashes stay.
   */
  async verifyCompliance(ctx: DomainContext, reportId: string, file: Buffer | { base64: unknown }): Promise<ReportVerification> {
    requirePermission(ctx, 'read:compliance');
    const bytes = Buffer.isBuffer(file) ? file : decodeBase64(file?.base64, 'contentBase64');
    return verification(await this.find(ctx.em, reportId, 'compliance'), bytes);
  }

  /**
   * The caller's key signs a completed report with a stated meaning (21 CFR 11.50). The signature is
   * bound to the SHA-256 of the stored file, hashed from its bytes (11.70), and recorded with an
   * audit-trail entry in one short transaction. The file is not rendered again (issue 37): the file a
   * reader downloads and verifies is the file that was signed.
   */
  async signCompliance(ctx: DomainContext, reportId: string, raw: unknown): Promise<ReportView & { signature: ReportSignatureRow }> {
    const principal = requirePermission(ctx, 'sign:reports');
    const input = parseInput(SignReportInput, raw ?? {});
    const em = ctx.em.fork() as EntityManager;
    const row = await this.find(em, reportId, 'compliance');
    newSignature(row, principal, input.meaning, row.sha256 ?? ''); // refuses a repeated key and meaning before reading the file
    const fileSha256 = await storedFileSha256(em, row);
    const { row: signed, signature } = await recordSignature(ctx.em, row.id, principal, input.meaning, fileSha256, (tx, current, before, sig) =>
      this.auditTrail.record(tx, actorOf(ctx), { action: 'report.sign', entityType: 'report', entityId: current.id }, before, {
        sha256: current.sha256 ?? null,
        signatures: current.signatures.length,
        signature: { ...sig },
      }),
    );
    return { ...this.view(signed), signature };
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

  private async create(
    ctx: DomainContext,
    init: Omit<Report, 'status' | 'estimatedCompletion' | 'createdAt' | 'signatures' | 'renditions'>,
  ): Promise<ReportView> {
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

  private async get(ctx: DomainContext, reportId: string, origin: ReportOrigin, opts: ReportReadOptions): Promise<ReportView> {
    const principal = requirePermission(ctx, ReportService.readPermission(origin));
    return this.view(await this.find(ctx.em, reportId, origin, principal, unread(opts)));
  }

  /** With an `owner`, another key's report is not found (404, as if it did not exist), the admin's view excepted. */
  private async find(em: EntityManager, reportId: string, origin: ReportOrigin, owner?: Principal, exclude?: ('signatures' | 'renditions')[]): Promise<Report> {
    const row = typeof reportId === 'string' && reportId.length <= 48 ? await em.findOne(Report, { id: reportId, origin }, exclude && { exclude }) : null;
    if (!row || (owner && !ownsReport(owner, row.requestedBy))) throw notFound('Report', String(reportId).slice(0, 60));
    return row as Report; // excluded columns are absent; the view reads them with defaults
  }

  private async download(ctx: DomainContext, reportId: string, origin: ReportOrigin): Promise<ReportFile> {
    const principal = requirePermission(ctx, ReportService.readPermission(origin));
    const row = await this.find(ctx.em, reportId, origin, principal);
    if (row.status === 'failed')
      throw new DomainError('CONFLICT', `Report '${row.id}' failed to generate; request a new one`, { details: { reportId: row.id, status: row.status } });
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
    // Past `expiresAt` the file is gone (a download answers 410): the status says so, with no link.
    const status = r.status === 'completed' && r.expiresAt && r.expiresAt.getTime() <= clock.nowMs() ? 'expired' : r.status;
    return {
      reportId: r.id,
      status,
      type: r.type,
      framework: r.framework ?? null,
      format: r.format,
      estimatedCompletion: r.estimatedCompletion.toISOString(),
      generatedAt: r.generatedAt?.toISOString() ?? null,
      expiresAt: r.expiresAt?.toISOString() ?? null,
      downloadUrl: status === 'completed' ? this.links.reportDownload(r.origin, r.id) : null,
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
  /** A report still generating becomes failed with its reason, and the trail says so (once, whoever gets there first). */
  private async markFailed(em: EntityManager, reportId: string, error: string): Promise<void> {
    await em.transactional(async (tx) => {
      const failed = await tx.nativeUpdate(Report, { id: reportId, status: 'generating' }, { status: 'failed', error });
      if (failed)
        this.auditTrail.record(
          tx as EntityManager,
          SYSTEM_ACTOR,
          { action: 'report.fail', entityType: 'report', entityId: reportId },
          { status: 'generating' },
          { status: 'failed', error },
        );
    });
  }

  private async generate(job: RunningJob): Promise<void> {
    const reportId = String(job.payload.reportId);
    const em = this.rootEm.fork() as EntityManager;
    const report = await em.findOne(Report, reportId);
    if (!report || report.status !== 'generating') return;
    // The content is what the requester may read now; a requester whose key is gone gets no report.
    const requester = report.requestedBy ? await principalOfKeyId(em, report.requestedBy) : { principal: AuthService.adminPrincipal() };
    if (!requester.principal) {
      await this.markFailed(em, reportId, `the requesting key is no longer valid (${requester.reason})`);
      return;
    }
    const readsFindings = can(requester.principal, 'read:audits');
    // At most `slots.report` reports render at once across every instance; the others wait queued, uncounted.
    const release = this.settings.heavy ? await this.settings.heavy.tryEnter('report') : async () => undefined;
    if (!release) throw new JobDeferred(1000);
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
      const content = await this.render(report.format, model, { instructions: this.links.reportInstructions() });
      const sha256 = sha256Of(content);
      const renditions: ReportRendition[] = [{ sha256, size: content.length, signatures: 0, renderedAt: generatedAt.toISOString() }];
      const expiresAt = new Date(generatedAt.getTime() + this.settings.ttlMs);
      const staged = await em.transactional(async (tx) => {
        const updated = await tx.nativeUpdate(
          Report,
          { id: report.id, status: 'generating' },
          { status: 'completed', content, size: content.length, generatedAt, expiresAt, sha256, recordSha256: sha256, renditions },
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
        await this.markFailed(em, reportId, err instanceof Error ? err.message.slice(0, 500) : 'generation failed');
      }
      throw err;
    } finally {
      await release();
    }
  }
}

/** What a report view may leave unread: the signatures when not asked for; the renditions (verify's) always. */
export type ReportReadOptions = { signatures?: boolean };
const unread = (opts: ReportReadOptions): ('signatures' | 'renditions')[] => (opts.signatures === false ? ['signatures', 'renditions'] : ['renditions']);
