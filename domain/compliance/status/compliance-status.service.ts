import type { EntityManager } from '@mikro-orm/postgresql';
import { requirePermission } from '../../auth/auth.service';
import type { DomainContext } from '../../context';
import type { DomainEvent } from '../../events/bus';
import { newId } from '../../ids';
import { SUPPORTED_FRAMEWORKS, type FrameworkId } from '../catalogue';
import { MetricSnapshot } from '../dashboard/snapshot.entity';
import type { ComplianceEventPublisher } from '../events';
import { assertFramework } from '../frameworks.service';
import type { Priority, RequirementStatus } from '../requirements/requirement.entity';
import { clock } from '../../clock';

export type ComplianceLevel = 'compliant' | 'mostly-compliant' | 'partially-compliant' | 'non-compliant' | 'not-assessed';

/** How much a requirement counts towards its framework's score. */
export const PRIORITY_WEIGHT: Record<Priority, number> = { critical: 4, high: 3, medium: 2, low: 1 };
/** How much of its weight a requirement earns in each status. */
export const STATUS_CREDIT: Record<RequirementStatus, number> = { completed: 1, 'in-progress': 0.5, pending: 0 };

/** Lowest score of each level, highest first. */
export const LEVEL_THRESHOLDS: readonly [ComplianceLevel, number][] = [
  ['compliant', 90],
  ['mostly-compliant', 70],
  ['partially-compliant', 40],
  ['non-compliant', 0],
];

export function levelOf(score: number, total: number): ComplianceLevel {
  if (total === 0) return 'not-assessed';
  return LEVEL_THRESHOLDS.find(([, min]) => score >= min)![0];
}

const round1 = (n: number) => Math.round(n * 10) / 10;

/** The numbers behind one framework (or all of them together). */
export interface Measure {
  score: number;
  status: ComplianceLevel;
  total: number;
  completed: number;
  inProgress: number;
  pending: number;
  /** Percent of requirements completed. */
  completionRate: number;
  /** Percent of requirements whose latest validation passed. */
  validationRate: number;
}

export interface Measurement {
  overall: Measure;
  frameworks: Record<FrameworkId, Measure>;
}

export interface FrameworkStatusView {
  score: number;
  status: ComplianceLevel;
  requirements: { total: number; completed: number; inProgress: number; pending: number };
  lastAssessment: string | null;
}

export interface ComplianceStatusView {
  overallScore: number;
  frameworks: Partial<Record<FrameworkId, FrameworkStatusView>>;
}

interface Tally {
  weight: number;
  earned: number;
  total: number;
  completed: number;
  inProgress: number;
  pending: number;
  passed: number;
}

const emptyTally = (): Tally => ({ weight: 0, earned: 0, total: 0, completed: 0, inProgress: 0, pending: 0, passed: 0 });

function measureOf(t: Tally): Measure {
  const score = t.weight > 0 ? round1((100 * t.earned) / t.weight) : 0;
  const pct = (n: number) => (t.total > 0 ? round1((100 * n) / t.total) : 0);
  return {
    score,
    status: levelOf(score, t.total),
    total: t.total,
    completed: t.completed,
    inProgress: t.inProgress,
    pending: t.pending,
    completionRate: pct(t.completed),
    validationRate: pct(t.passed),
  };
}

const sameMeasure = (a: Measure, b: Measure) =>
  a.score === b.score && a.status === b.status && a.completionRate === b.completionRate && a.validationRate === b.validationRate && a.total === b.total;

/**
 * Compliance scores. A framework's score is the priority-weighted share of its requirements that
 * are done: completed earns a requirement's full weight, in-progress half, pending nothing;
 * weights are critical 4, high 3, medium 2, low 1; ×100, one decimal. The overall score is the
 * same formula over every requirement. No requirements: score 0, status `not-assessed`.
 */
export class ComplianceStatusService {
  constructor(
    private readonly rootEm: EntityManager,
    private readonly events: ComplianceEventPublisher,
  ) {}

  /** Current numbers, from one aggregate query (inside a transaction when `em` is one). */
  async measure(em: EntityManager): Promise<Measurement> {
    const rows = await em.getConnection().execute<{ framework: string; status: RequirementStatus; priority: Priority; n: number; passed: number }[]>(
      `select framework, status, priority, count(*)::int as n,
              count(*) filter (where validation->>'status' = 'passed')::int as passed
         from requirements where deleted_at is null
        group by framework, status, priority`,
      [],
      'all',
      em.getTransactionContext(),
    );
    const overall = emptyTally();
    const byFramework = Object.fromEntries(SUPPORTED_FRAMEWORKS.map((f) => [f, emptyTally()])) as Record<FrameworkId, Tally>;
    for (const r of rows) {
      const n = Number(r.n);
      const weight = (PRIORITY_WEIGHT[r.priority] ?? PRIORITY_WEIGHT.medium) * n;
      const earned = weight * (STATUS_CREDIT[r.status] ?? 0);
      for (const t of [overall, byFramework[r.framework as FrameworkId]]) {
        if (!t) continue; // a framework no longer in the catalogue counts only overall
        t.weight += weight;
        t.earned += earned;
        t.total += n;
        t.passed += Number(r.passed);
        if (r.status === 'completed') t.completed += n;
        else if (r.status === 'in-progress') t.inProgress += n;
        else t.pending += n;
      }
    }
    return {
      overall: measureOf(overall),
      frameworks: Object.fromEntries(SUPPORTED_FRAMEWORKS.map((f) => [f, measureOf(byFramework[f])])) as Record<FrameworkId, Measure>,
    };
  }

  /**
   * After a change (inside its transaction): compares with the measurement taken before it, writes
   * history snapshots for whatever moved, and stages `compliance.score_changed` for every framework
   * whose score or status moved. Returns the staged events.
   */
  async recordChanges(em: EntityManager, before: Measurement): Promise<DomainEvent[]> {
    await em.flush();
    const after = await this.measure(em);
    const staged: DomainEvent[] = [];
    const now = clock.now();
    let anyChanged = false;
    for (const f of SUPPORTED_FRAMEWORKS) {
      const prev = before.frameworks[f];
      const next = after.frameworks[f];
      if (sameMeasure(prev, next)) continue;
      anyChanged = true;
      this.snapshot(em, f, next, now);
      if (prev.score !== next.score || prev.status !== next.status) {
        staged.push(
          await this.events.stage(em, 'compliance.score_changed', {
            framework: f,
            previousScore: prev.score,
            score: next.score,
            previousStatus: prev.status,
            status: next.status,
            overallScore: after.overall.score,
          }),
        );
      }
    }
    if (anyChanged || !sameMeasure(before.overall, after.overall)) this.snapshot(em, null, after.overall, now);
    await em.flush();
    return staged;
  }

  /** An explicit assessment: always records a snapshot of the framework (and overall). */
  async assess(ctx: DomainContext, framework: string): Promise<FrameworkStatusView & { framework: FrameworkId }> {
    requirePermission(ctx, 'write:compliance');
    const id = assertFramework(framework);
    await ctx.em.transactional(async (tx) => {
      const m = await this.measure(tx as EntityManager);
      const now = clock.now();
      this.snapshot(tx as EntityManager, id, m.frameworks[id], now);
      this.snapshot(tx as EntityManager, null, m.overall, now);
    });
    return this.frameworkStatus(ctx, id, { skipPermission: true });
  }

  /** Gives history a baseline: with no snapshot at all, records the current state once. */
  async ensureBaseline(): Promise<void> {
    const em = this.rootEm.fork() as EntityManager;
    if ((await em.count(MetricSnapshot, {})) > 0) return;
    const m = await this.measure(em);
    const now = clock.now();
    for (const f of SUPPORTED_FRAMEWORKS) this.snapshot(em, f, m.frameworks[f], now);
    this.snapshot(em, null, m.overall, now);
    await em.flush();
  }

  async getStatus(ctx: DomainContext, framework?: string | null): Promise<ComplianceStatusView> {
    requirePermission(ctx, 'read:compliance');
    const only = framework === undefined || framework === null || framework === '' ? null : assertFramework(framework);
    const m = await this.measure(ctx.em);
    const last = await this.lastAssessments(ctx.em);
    const frameworks: ComplianceStatusView['frameworks'] = {};
    for (const f of only ? [only] : SUPPORTED_FRAMEWORKS) frameworks[f] = statusView(m.frameworks[f], last.get(f) ?? null);
    return { overallScore: m.overall.score, frameworks };
  }

  /** The status of one framework (the short `/api/compliance/{framework}` form). */
  async frameworkStatus(ctx: DomainContext, framework: string, opts: { skipPermission?: boolean } = {}): Promise<FrameworkStatusView & { framework: FrameworkId }> {
    if (!opts.skipPermission) requirePermission(ctx, 'read:compliance');
    const id = assertFramework(framework);
    const m = await this.measure(ctx.em);
    const last = await this.lastAssessments(ctx.em);
    return { framework: id, ...statusView(m.frameworks[id], last.get(id) ?? null) };
  }

  private snapshot(em: EntityManager, framework: FrameworkId | null, m: Measure, at: Date) {
    em.create(MetricSnapshot, {
      id: newId('snap'),
      takenAt: at,
      framework,
      complianceScore: m.score,
      requirementCompletion: m.completionRate,
      validationRate: m.validationRate,
    });
  }

  /** When each framework's numbers were last recorded (a change or an explicit assessment). */
  private async lastAssessments(em: EntityManager): Promise<Map<string, string>> {
    const rows = await em
      .getConnection()
      .execute<{ framework: string; at: string | Date }[]>(
        'select framework, max(taken_at) as at from metric_snapshots where framework is not null group by framework',
        [],
        'all',
        em.getTransactionContext(),
      );
    return new Map(rows.map((r) => [r.framework, new Date(r.at).toISOString()]));
  }
}

function statusView(m: Measure, lastAssessment: string | null): FrameworkStatusView {
  return {
    score: m.score,
    status: m.status,
    requirements: { total: m.total, completed: m.completed, inProgress: m.inProgress, pending: m.pending },
    lastAssessment,
  };
}
