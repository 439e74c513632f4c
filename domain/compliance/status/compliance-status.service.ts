import type { EntityManager } from '@mikro-orm/postgresql';
import { requirePermission } from '../../auth/auth.service';
import type { DomainContext } from '../../context';
import type { DomainEvent } from '../../events/bus';
import { newId } from '../../ids';
import { SUPPORTED_FRAMEWORKS, type FrameworkId } from '../catalogue';
import { MetricSnapshot } from '../dashboard/snapshot.entity';
import type { ComplianceEventPublisher } from '../events';
import { assertFramework } from '../frameworks.service';
import { Requirement, type Priority, type RequirementStatus } from '../requirements/requirement.entity';
import { clausesOf } from '../requirements/clauses';
import { getFramework } from '../catalogue';
import type { Severity } from '../findings/audit-finding.entity';
import { noOpenFindings, scoreParts, type OpenFindingCounts, type ScoreParts } from './scoring';
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
  /** How the score was reached (docs/scoring.md); for the overall measure, null (it is the mean of the assessed frameworks). */
  parts: ScoreParts | null;
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
  /** The parts of the score (docs/scoring.md). */
  scoring: ScoreParts;
}

export interface ComplianceStatusView {
  overallScore: number;
  frameworks: Partial<Record<FrameworkId, FrameworkStatusView>>;
}

interface Tally {
  weight: number;
  earned: number;
  validatedWeight: number;
  total: number;
  completed: number;
  inProgress: number;
  pending: number;
  passed: number;
  covered: Set<string>;
  open: OpenFindingCounts;
}

const emptyTally = (): Tally => ({ weight: 0, earned: 0, validatedWeight: 0, total: 0, completed: 0, inProgress: 0, pending: 0, passed: 0, covered: new Set(), open: noOpenFindings() });

function counts(t: Tally) {
  const pct = (n: number) => (t.total > 0 ? round1((100 * n) / t.total) : 0);
  return { total: t.total, completed: t.completed, inProgress: t.inProgress, pending: t.pending, completionRate: pct(t.completed), validationRate: pct(t.passed) };
}

function frameworkMeasure(framework: FrameworkId, t: Tally): Measure {
  const clauses = getFramework(framework).clauses.map((c) => c.section);
  const { score, parts } = scoreParts({
    clauses: clauses.length,
    coveredClauses: clauses.filter((c) => t.covered.has(c)).length,
    requirements: t.total,
    weight: t.weight,
    earned: t.earned,
    validatedWeight: t.validatedWeight,
    openFindings: t.open,
  });
  return { score, status: levelOf(score, t.total), ...counts(t), parts };
}

/** Overall: the mean score of the frameworks that have requirements (each framework counts once, whatever its size). */
function overallMeasure(t: Tally, frameworks: Measure[]): Measure {
  const assessed = frameworks.filter((m) => m.total > 0);
  const score = assessed.length ? round1(assessed.reduce((s, m) => s + m.score, 0) / assessed.length) : 0;
  return { score, status: levelOf(score, t.total), ...counts(t), parts: null };
}

/** Assessments with unchanged numbers within this window share one history snapshot. */
const ASSESSMENT_COALESCE_MS = 60_000;

const sameMeasure = (a: Measure, b: Measure) =>
  a.score === b.score && a.status === b.status && a.completionRate === b.completionRate && a.validationRate === b.validationRate && a.total === b.total;

/**
 * Compliance scores by the model in `scoring.ts` (docs/scoring.md): clause coverage, requirement
 * status (priority-weighted: critical 4, high 3, medium 2, low 1; completed 1, in-progress ½) and
 * validation results, less open findings by severity. The overall score is the mean of the
 * frameworks that have requirements. No requirements: score 0, status `not-assessed`.
 */
export class ComplianceStatusService {
  constructor(
    private readonly rootEm: EntityManager,
    private readonly events: ComplianceEventPublisher,
  ) {}

  /** Current numbers, from one aggregate query (inside a transaction when `em` is one). */
  async measure(em: EntityManager): Promise<Measurement> {
    const rows = await em.getConnection().execute<
      { kind: 'r' | 'c' | 'f'; framework: string; status: RequirementStatus | null; priority: Priority | null; n: number; passed: number; clause: string | null; severity: Severity | null }[]
    >(
      `select 'r' as kind, framework, status, priority, count(*)::int as n,
              count(*) filter (where validation->>'status' = 'passed')::int as passed, null::text as clause, null::text as severity
         from requirements where deleted_at is null
        group by framework, status, priority
       union all
       select 'c', r.framework, null, null, 0, 0, c.clause, null
         from requirements r cross join lateral jsonb_array_elements_text(coalesce(r.clauses, '[]'::jsonb)) as c(clause)
        where r.deleted_at is null
        group by r.framework, c.clause
       union all
       select 'f', framework, null, null, count(*)::int, 0, null, severity
         from audit_findings where status <> 'resolved'
        group by framework, severity`,
      [],
      'all',
      em.getTransactionContext(),
    );
    const overall = emptyTally();
    const byFramework = Object.fromEntries(SUPPORTED_FRAMEWORKS.map((f) => [f, emptyTally()])) as Record<FrameworkId, Tally>;
    for (const r of rows) {
      const t = byFramework[r.framework as FrameworkId];
      if (r.kind === 'c') {
        if (t && r.clause) t.covered.add(r.clause);
        continue;
      }
      if (r.kind === 'f') {
        if (t && r.severity && r.severity in t.open) t.open[r.severity] += Number(r.n);
        continue;
      }
      const n = Number(r.n);
      const weight = (PRIORITY_WEIGHT[r.priority as Priority] ?? PRIORITY_WEIGHT.medium) * n;
      const earned = weight * (STATUS_CREDIT[r.status as RequirementStatus] ?? 0);
      const passed = Number(r.passed);
      for (const tally of [overall, t]) {
        if (!tally) continue; // a framework no longer in the catalogue counts only overall
        tally.weight += weight;
        tally.earned += earned;
        tally.validatedWeight += (PRIORITY_WEIGHT[r.priority as Priority] ?? PRIORITY_WEIGHT.medium) * passed;
        tally.total += n;
        tally.passed += passed;
        if (r.status === 'completed') tally.completed += n;
        else if (r.status === 'in-progress') tally.inProgress += n;
        else tally.pending += n;
      }
    }
    const frameworks = Object.fromEntries(SUPPORTED_FRAMEWORKS.map((f) => [f, frameworkMeasure(f, byFramework[f])])) as Record<FrameworkId, Measure>;
    return { overall: overallMeasure(overall, Object.values(frameworks)), frameworks };
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
      await this.assessmentSnapshot(tx as EntityManager, id, m.frameworks[id], now);
      await this.assessmentSnapshot(tx as EntityManager, null, m.overall, now);
    });
    return this.frameworkStatus(ctx, id, { skipPermission: true });
  }

  /** Maps requirements stored before clause mapping existed (once, under the start-up lock). */
  async backfillClauses(): Promise<number> {
    const em = this.rootEm.fork() as EntityManager;
    let done = 0;
    for (;;) {
      const rows = await em.find(Requirement, { clauses: null }, { limit: 500, orderBy: { id: 'asc' } });
      if (!rows.length) return done;
      for (const r of rows) r.clauses = clausesOf(r);
      await em.flush();
      em.clear();
      done += rows.length;
    }
  }

  /** Gives history a baseline: with no snapshot at all, records the current state once. */
  async ensureBaseline(): Promise<void> {
    await this.backfillClauses();
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

  /**
   * An assessment that finds the numbers of the latest snapshot taken within ASSESSMENT_COALESCE_MS
   * moves that snapshot to now instead of adding one: a flood of assessments writes one row per
   * framework a minute, and "last assessed" (the newest snapshot's time) stays exact.
   */
  private async assessmentSnapshot(em: EntityManager, framework: FrameworkId | null, m: Measure, at: Date) {
    const recent = await em.findOne(
      MetricSnapshot,
      { framework, takenAt: { $gte: new Date(at.getTime() - ASSESSMENT_COALESCE_MS) } },
      { orderBy: { takenAt: 'desc', id: 'desc' } },
    );
    if (recent && recent.complianceScore === m.score && recent.requirementCompletion === m.completionRate && recent.validationRate === m.validationRate) {
      if (recent.takenAt < at) recent.takenAt = at;
      return;
    }
    this.snapshot(em, framework, m, at);
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
    scoring: m.parts!,
  };
}
