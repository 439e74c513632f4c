import type { EntityManager } from '@mikro-orm/postgresql';
import { requirePermission } from '../../auth/principal';
import { clock } from '../../clock';
import type { DomainContext } from '../../context';
import type { RowSink } from '../../database/row-batch';
import { makeEvent, type DomainEvent } from '../../events/bus';
import { newId } from '../../ids';
import { SUPPORTED_FRAMEWORKS, type FrameworkId } from '../catalogue';
import { MetricSnapshot } from '../dashboard/snapshot.entity';
import { assertFramework } from '../frameworks.service';
import { measurementOf, sameMeasure, type ComplianceStatusView, type FrameworkStatusView, type Measure, type Measurement, type TallyRow } from './measurement';

/** A row of `compliance_tally_change()`: a bucket with and without the reading transaction's own deltas. */
export type TallyChangeRow = TallyRow & { n_before: number; passed_before: number; alongside?: unknown };

/** The read of a change's figures (migration 20261126050000), with a scalar `alongside` read in the same statement. */
export const tallyChangeSql = (alongside?: string) =>
  alongside
    ? // One row at least, so `alongside` is answered even while the tally is empty (its buckets' columns then null).
      `select c.*, (${alongside}) as alongside from (select 1) one left join compliance_tally_change() c on true`
    : 'select c.* from compliance_tally_change() c';

/** Assessments with unchanged numbers within this window share one history snapshot. */
const ASSESSMENT_COALESCE_MS = 60_000;

/**
 * Compliance scores by the model in `scoring.ts` (docs/scoring.md): clause coverage, requirement
 * status (priority-weighted: critical 4, high 3, medium 2, low 1; completed 1, in-progress ½) and
 * validation results, less open findings by severity. The overall score is the mean of the
 * frameworks that have requirements. No requirements: score 0, status `not-assessed`.
 */
export class ComplianceStatusService {
  constructor(private readonly rootEm: EntityManager) {}

  /**
   * Current numbers (inside a transaction when `em` is one, its own changes included). They come from
   * `compliance_tally`, which triggers keep as deltas, so the cost follows the number of buckets and
   * of deltas since the last compaction, not the number of requirements.
   */
  async measure(em: EntityManager): Promise<Measurement> {
    const rows = await em.getConnection().execute<TallyRow[]>(
      `select kind, framework, status, priority, clause, severity, sum(n)::int as n, sum(passed)::int as passed
         from compliance_tally
        group by kind, framework, status, priority, clause, severity
       having sum(n) <> 0`,
      [],
      'all',
      em.getTransactionContext(),
    );
    return measurementOf(rows);
  }

  /**
   * The numbers without and with what the transaction of `em` has written so far, in one read: the
   * tally rows this transaction appended (their `xmin` is its id; a change runs in no savepoint) are
   * left out of the first. Both come from one snapshot, so another writer's commit meanwhile counts on
   * both sides and never in this change's difference. The read is the database function
   * `compliance_tally_change()` (migration 20261126050000): the same query, planned once per session
   * instead of on every write.
   */
  async measureChange(em: EntityManager, alongside?: string): Promise<{ before: Measurement; after: Measurement; alongside?: unknown }> {
    const rows = await em.getConnection().execute<TallyChangeRow[]>(tallyChangeSql(alongside), [], 'all', em.getTransactionContext());
    return {
      before: measurementOf(rows.filter((r) => Number(r.n_before) !== 0).map((r) => ({ ...r, n: r.n_before, passed: r.passed_before }))),
      after: measurementOf(rows.filter((r) => Number(r.n) !== 0)),
      // A scalar read in the same statement (no row at all when the tally is empty).
      ...(alongside && rows.length ? { alongside: rows[0].alongside } : {}),
    };
  }

  /**
   * After a change (inside its transaction, once its writes are made): the history snapshots for
   * whatever moved go to `sink` (the caller inserts them in `em`'s transaction), and the
   * `compliance.score_changed` events for every framework whose score or status moved are returned
   * unstaged (the caller stages them after the change's own). `alongside` is a scalar query read in
   * the same statement as the tally (what else the change needs to know, for no round trip of its own).
   */
  async changesInto(sink: RowSink, em: EntityManager, alongside?: { sql: string; seen: (value: unknown) => void }): Promise<DomainEvent[]> {
    await em.flush();
    const measured = await this.measureChange(em, alongside?.sql);
    if (alongside && 'alongside' in measured) alongside.seen(measured.alongside);
    const { snapshots, events } = this.changesOf(measured, clock.now());
    for (const s of snapshots) sink.add('metric_snapshots', this.snapshotRow(s.framework, s.measure, s.at));
    return events.map((e) => makeEvent(e.type, e.data));
  }

  /**
   * A creation's changes (`ChangeRunner.create`): `read` is `tallyChangeSql` answered by the statement
   * that inserted the creation's rows, so it counts none of them (a statement does not see its own
   * writes, and the tally triggers fire at its end); `added` is what those rows add to the tally
   * (`tallyDeltaOf`). The figures without and with the creation, from one snapshot as `measureChange`
   * gives them; snapshots and events as `changesInto` makes them.
   */
  creationChangesInto(sink: RowSink, read: TallyChangeRow[], added: TallyRow[], alongside?: (value: unknown) => void): DomainEvent[] {
    if (alongside && read.length) alongside(read[0].alongside);
    const beforeRows = read.filter((r) => Number(r.n_before) !== 0).map((r) => ({ ...r, n: r.n_before, passed: r.passed_before }));
    const { snapshots, events } = this.changesOf({ before: measurementOf(beforeRows), after: measurementOf([...beforeRows, ...added]) }, clock.now());
    for (const s of snapshots) sink.add('metric_snapshots', this.snapshotRow(s.framework, s.measure, s.at));
    return events.map((e) => makeEvent(e.type, e.data));
  }

  private changesOf({ before, after }: { before: Measurement; after: Measurement }, now: Date) {
    const snapshots: { framework: FrameworkId | null; measure: Measure; at: Date }[] = [];
    const events: { type: 'compliance.score_changed'; data: Record<string, unknown> }[] = [];
    let anyChanged = false;
    for (const f of SUPPORTED_FRAMEWORKS) {
      const prev = before.frameworks[f];
      const next = after.frameworks[f];
      if (sameMeasure(prev, next)) continue;
      anyChanged = true;
      snapshots.push({ framework: f, measure: next, at: now });
      if (prev.score !== next.score || prev.status !== next.status) {
        events.push({
          type: 'compliance.score_changed',
          data: {
            framework: f,
            previousScore: prev.score,
            score: next.score,
            previousStatus: prev.status,
            status: next.status,
            overallScore: after.overall.score,
          },
        });
      }
    }
    if (anyChanged || !sameMeasure(before.overall, after.overall)) snapshots.push({ framework: null, measure: after.overall, at: now });
    return { snapshots, events };
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

  /** The status of one framework alone. */
  async frameworkStatus(
    ctx: DomainContext,
    framework: string,
    opts: { skipPermission?: boolean } = {},
  ): Promise<FrameworkStatusView & { framework: FrameworkId }> {
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

  private snapshotRow(framework: FrameworkId | null, m: Measure, at: Date) {
    return {
      id: newId('snap'),
      taken_at: at,
      framework,
      compliance_score: m.score,
      requirement_completion: m.completionRate,
      validation_rate: m.validationRate,
    };
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
