import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { requirePermission } from '../../auth/principal';
import type { DomainContext } from '../../context';
import { DomainError, notFound } from '../../errors';
import { newId } from '../../ids';
import { parseInput } from '../../validation';
import { isFrameworkId, SUPPORTED_FRAMEWORKS } from '../catalogue';
import type { ChangeRunner } from '../change-runner';
import { precheckFramework } from '../frameworks.service';
import { PageQuery, withoutNulls } from '../requirements/requirement.inputs';
import { findRequirement } from '../requirements/requirement.rows';
import type { Page } from '../requirements/requirement.views';
import { AuditFinding, FINDING_STATUSES, SEVERITIES } from './audit-finding.entity';
import { findingView, type FindingView } from './finding-view';
import { clock } from '../../clock';
import { readFindingPage, type FindingField } from './finding.projection';

export { findingView, type FindingView } from './finding-view';

const isoDateTime = z.iso.datetime({ offset: true });
/** A due date may be a calendar date (end of that day is not implied: it is read as midnight UTC) or a timestamp. */
const dateOrDateTime = z.union([isoDateTime, z.iso.date()]);
const frameworkField = z.enum(SUPPORTED_FRAMEWORKS, { error: `framework not supported; supported: ${SUPPORTED_FRAMEWORKS.join(', ')}` });
const evidenceField = z.array(z.string().trim().min(1).max(2000)).max(100);
/** Clock skew tolerated on client-given "resolved at" times. */
const FUTURE_SKEW_MS = 5 * 60_000;

export const CreateFindingInput = z.object({
  title: z.string().trim().min(1).max(300),
  description: z.string().max(20_000).nullable().optional(),
  framework: frameworkField,
  severity: z.enum(SEVERITIES),
  requirementId: z.string().min(1).max(100).nullable().optional(),
  evidence: evidenceField.default([]),
  discoveredAt: isoDateTime.optional(),
  dueDate: dateOrDateTime.nullable().optional(),
});

/** `evidence` is appended (duplicates skipped): audit evidence is never silently dropped. */
export const UpdateFindingInput = z.object({
  status: z.enum(FINDING_STATUSES).optional(),
  resolution: z.string().trim().min(1).max(20_000).nullable().optional(),
  resolvedAt: isoDateTime.optional(),
  evidence: evidenceField.optional(),
  severity: z.enum(SEVERITIES).optional(),
  dueDate: dateOrDateTime.nullable().optional(),
  description: z.string().max(20_000).nullable().optional(),
});

export const ListFindingsQuery = z.object({
  framework: frameworkField.optional(),
  severity: z.enum(SEVERITIES).optional(),
  status: z.enum(FINDING_STATUSES).optional(),
  requirementId: z.string().min(1).max(100).optional(),
  ...PageQuery.shape,
});

const fieldError = (field: string, message: string) => new DomainError('VALIDATION_ERROR', `${field}: ${message}`, { fields: [{ field, message }] });

/**
 * Audit findings. Resolving needs a resolution text (given now or already recorded) and stamps
 * resolvedAt (now unless given); reopening clears both, since they describe a fix no longer in force.
 */
export class FindingService {
  /** Changes re-score through the runner: open findings weigh on the score (docs/scoring.md). */
  constructor(private readonly deps: { changes: ChangeRunner }) {}

  /** `fields` (a projection, `findingProjection`): only those fields are read and answered. */
  async list(ctx: DomainContext, rawQuery: unknown, opts: { fields?: readonly FindingField[] } = {}): Promise<Page<FindingView>> {
    requirePermission(ctx, 'read:audits');
    const query = withoutNulls(rawQuery);
    precheckFramework(query);
    const q = parseInput(ListFindingsQuery, query);
    if (opts.fields) return readFindingPage(ctx.em, q, opts.fields);
    const where: Record<string, unknown> = {};
    for (const k of ['framework', 'severity', 'status', 'requirementId'] as const) if (q[k]) where[k] = q[k];
    const [rows, total] = await ctx.em.findAndCount(AuditFinding, where, {
      orderBy: { discoveredAt: 'desc', id: 'desc' },
      limit: q.limit,
      offset: q.offset,
    });
    return { data: rows.map(findingView), pagination: { total, limit: q.limit, offset: q.offset, hasMore: q.offset + rows.length < total } };
  }

  async get(ctx: DomainContext, id: string): Promise<FindingView> {
    requirePermission(ctx, 'read:audits');
    return findingView(await this.load(ctx.em, id));
  }

  async create(ctx: DomainContext, raw: unknown): Promise<FindingView> {
    requirePermission(ctx, 'write:audits');
    precheckFramework(raw);
    const input = parseInput(CreateFindingInput, raw);
    return this.deps.changes.run(ctx, async (change) => {
      if (input.requirementId) {
        const req = await findRequirement(change.tx, input.requirementId);
        if (!req) throw fieldError('requirementId', `requirement '${input.requirementId}' not found`);
        if (req.framework !== input.framework) {
          throw fieldError('framework', `requirement '${req.id}' belongs to framework '${req.framework}', not '${input.framework}'`);
        }
      }
      const now = clock.now();
      const f = change.tx.create(AuditFinding, {
        id: newId('fnd'),
        title: input.title,
        description: input.description ?? null,
        framework: input.framework,
        requirementId: input.requirementId ?? null,
        severity: input.severity,
        status: 'open',
        evidence: [...new Set(input.evidence)],
        resolution: null,
        resolvedAt: null,
        discoveredAt: input.discoveredAt ? new Date(input.discoveredAt) : now,
        dueDate: input.dueDate ? new Date(input.dueDate) : null,
        createdAt: now,
        updatedAt: now,
      });
      const view = findingView(f);
      change.audit('finding', 'finding.create', f.id, null, { ...view });
      change.emit('finding.created', { ...view });
      change.log('finding.created', `Recorded ${f.severity} finding "${f.title}" (${f.framework})`, f.id);
      return view;
    });
  }

  async update(ctx: DomainContext, id: string, raw: unknown): Promise<FindingView> {
    requirePermission(ctx, 'write:audits');
    const input = parseInput(UpdateFindingInput, withoutUndefined(raw));
    const changed = Object.keys(input).filter((k) => (input as Record<string, unknown>)[k] !== undefined);
    if (!changed.length) throw fieldError('(body)', `give one or more of: ${Object.keys(UpdateFindingInput.shape).join(', ')}`);
    return this.deps.changes.run(ctx, async (change) => {
      const f = await this.load(change.tx, id);
      const previous = findingView(f);
      const previousStatus = f.status;
      const nextStatus = input.status ?? f.status;
      if (input.resolvedAt !== undefined && nextStatus !== 'resolved') {
        throw fieldError('resolvedAt', 'only a resolved finding has a resolution time; send status "resolved" as well');
      }
      if (input.resolvedAt !== undefined && new Date(input.resolvedAt).getTime() > clock.nowMs() + FUTURE_SKEW_MS) {
        throw fieldError('resolvedAt', 'must not be in the future');
      }
      if (input.severity !== undefined) f.severity = input.severity;
      if (input.description !== undefined) f.description = input.description;
      if (input.dueDate !== undefined) f.dueDate = input.dueDate ? new Date(input.dueDate) : null;
      if (input.evidence) f.evidence = [...new Set([...(f.evidence ?? []), ...input.evidence])];
      if (input.resolution !== undefined) f.resolution = input.resolution;
      if (nextStatus === 'resolved') {
        if (!f.resolution) throw fieldError('resolution', 'a resolution is required to resolve a finding');
        if (input.resolvedAt) f.resolvedAt = new Date(input.resolvedAt);
        else f.resolvedAt ??= clock.now();
      } else if (previousStatus === 'resolved') {
        f.resolvedAt = null;
        if (input.resolution === undefined) f.resolution = null;
      }
      f.status = nextStatus;
      f.updatedAt = clock.now();
      const view = findingView(f);
      change.audit('finding', 'finding.update', f.id, { ...previous }, { ...view });
      change.emit('finding.updated', { ...view, changes: changed, previousStatus });
      const statusNote = f.status !== previousStatus ? `; status ${previousStatus} → ${f.status}` : '';
      change.log('finding.updated', `Updated finding "${f.title}" (${changed.join(', ')})${statusNote}`, f.id);
      return view;
    });
  }

  private async load(em: EntityManager, id: string): Promise<AuditFinding> {
    const f = typeof id === 'string' && id.length <= 100 ? await em.findOne(AuditFinding, { id }) : null;
    if (!f) throw notFound('Finding', String(id).slice(0, 100));
    return f;
  }
}

function withoutUndefined(raw: unknown): unknown {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return raw ?? {};
  return Object.fromEntries(Object.entries(raw as Record<string, unknown>).filter(([, v]) => v !== undefined));
}
