import type { EntityManager } from '@mikro-orm/postgresql';
import { requirePermission } from '../../auth/principal';
import type { DomainContext } from '../../context';
import { makeEvent, type DomainEvent } from '../../events/bus';
import type { RowSink } from '../../database/row-batch';
import { newId } from '../../ids';
import { SUPPORTED_FRAMEWORKS, type FrameworkId } from '../catalogue';
import { MetricSnapshot } from '../dashboard/snapshot.entity';
import type { ComplianceEventPublisher } from '../events';
import { assertFramework } from '../frameworks.service';
import { NOT_DELETED, Requirement, type Priority, type RequirementStatus } from '../requirements/requirement.entity';
import { clausesOf } from '../requirements/clauses';
import { getFramework } from '../catalogue';
import type { Severity } from '../findings/audit-finding.entity';
import { noOpenFindings, scoreParts, type OpenFindingCounts, type ScoreParts } from './scoring';
import { clock } from '../../clock';

export type ComplianceLevel = 'compliant' | 'mostly-compliant' | 'partially-compliant' | 'non-compliant' | 'not-assessed';
export const COMPLIANCE_LEVELS: readonly ComplianceLevel[] = ['compliant', 'mostly-compliant', 'partially-compliant', 'non-compliant', 'not-assessed'];

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

/** A `compliance_tally` bucket: its kind, its key columns and its summed deltas. */
interface TallyRow {
  kind: 'r' | 'c' | 'f';
  framework: string;
  status: RequirementStatus | null;
  priority: Priority | null;
  clause: string | null;
  severity: Severity | null;
  n: number;
  passed: number;
}

/** Folds the tally's buckets into the figures of each framework and overall. */
function measurementOf(rows: TallyRow[]): Measurement {
  const overall = emptyTally();
  const byFramework = Object.fromEntries(SUPPORTED_FRAMEWORKS.map((f) => [f, emptyTally()])) as Record<FrameworkId, Tally>;
  for (const r of rows) {
    const t = byFramework[r.framework as FrameworkId];
    if (r.kind === 'c') {
      if (t && r.clause && Number(r.n) > 0) t.covered.add(r.clause);
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

/** How often each instance checks whether the tally needs compacting. */
export const TALLY_COMPACT_INTERVAL_MS = 1000;

/**
 * Changes committed here after which the tally is checked too, without waiting for the interval:
 * every change sums the deltas since the last compaction, so under a stream of writes their number,
 * not the interval, sets that read's cost (at 300 writes/s the interval let ~300 pile up).
 */
export const TALLY_CHECK_EVERY_CHANGES = 32;

/**
 * A tally whose heap holds fewer rows than this per page on average is mostly empty pages, and is
 * shrunk (`shrinkTally`). A full page holds ~120 tally rows; a compacted tally fills its pages.
 */
export const TALLY_MIN_ROWS_PER_PAGE = 25;
/** Pages the tally may span whatever it holds (a small tally is not worth a VACUUM). */
export const TALLY_SLACK_PAGES = 8;
/** After a shrink that left the tally as large, the next try waits this long. */
export const TALLY_SHRINK_RETRY_MS = 60_000;

const tallyPagesFor = (rows: number) => TALLY_SLACK_PAGES + rows / TALLY_MIN_ROWS_PER_PAGE;

/** How often each instance deletes the history snapshots no history can show any more. */
export const SNAPSHOT_PRUNE_INTERVAL_MS = 10 * 60_000;

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
    const rows = await em.getConnection().execute<(TallyRow & { n_before: number; passed_before: number; alongside?: unknown })[]>(
      `select c.*${alongside ? `, (${alongside}) as alongside` : ''} from compliance_tally_change() c`,
      [],
      'all',
      em.getTransactionContext(),
    );
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

  /**
   * Folds the tally's deltas into one row per bucket. Rows appended meanwhile by other transactions
   * are not in this statement's snapshot and stay as they are; two compactions at once each fold only
   * the rows they deleted.
   */
  async compactTally(): Promise<void> {
    const rows = await this.rootEm.getConnection().execute<{ n: number }[]>(
      `with folded as (delete from compliance_tally returning kind, framework, status, priority, clause, severity, n, passed),
       kept as (
         insert into compliance_tally (kind, framework, status, priority, clause, severity, n, passed)
         select kind, framework, status, priority, clause, severity, sum(n), sum(passed)
           from folded group by kind, framework, status, priority, clause, severity
         having sum(n) <> 0 or sum(passed) <> 0
         returning 1)
       select count(*)::int as n from kept`,
    );
    this.tallyRowsAfterCompaction = Number(rows[0]?.n ?? 0);
  }

  private tallyRowsAfterCompaction = 0;
  private changesSinceCheck = 0;
  /** Set by the services' start: asks for a compaction check (never overlapping, never waited for). */
  onTallyGrowth?: () => void;

  /** A measured change (one that staged something) has committed: every `TALLY_CHECK_EVERY_CHANGES`, check the tally's size. */
  changeCommitted(): void {
    if (++this.changesSinceCheck < TALLY_CHECK_EVERY_CHANGES) return;
    this.changesSinceCheck = 0;
    this.onTallyGrowth?.();
  }

  /**
   * Compacts when the deltas appended since the last compaction outnumber the buckets kept then, and
   * shrinks the tally's heap when it is mostly empty pages.
   */
  async compactTallyIfGrown(): Promise<void> {
    const { rows, pages } = await this.tallySize();
    if (pages > tallyPagesFor(rows) && clock.nowMs() >= this.shrinkNotBefore) {
      // Until it has worked, not again for a while: a VACUUM by a role that does not own the table
      // only warns, and one that found the table locked gives its pages back at a later try.
      this.shrinkNotBefore = clock.nowMs() + TALLY_SHRINK_RETRY_MS;
      await this.shrinkTally();
      const after = await this.tallySize();
      if (after.pages <= tallyPagesFor(after.rows)) this.shrinkNotBefore = 0;
    } else if (rows > 2 * this.tallyRowsAfterCompaction + 64) await this.compactTally();
  }

  private shrinkNotBefore = 0;

  private async tallySize(): Promise<{ rows: number; pages: number }> {
    const [row] = await this.rootEm
      .getConnection()
      .execute<{ n: number; pages: number }[]>(`select count(*)::int as n, (pg_relation_size('compliance_tally') / current_setting('block_size')::int)::int as pages from compliance_tally`);
    return { rows: Number(row?.n ?? 0), pages: Number(row?.pages ?? 0) };
  }

  /**
   * Compacts the tally into the front of its heap and gives the empty pages back. Every measurement
   * reads the whole tally, and a heap keeps its size after its rows are deleted: a bulk import appends
   * a delta per row, so after 100,000 requirements the tally's four buckets sat on the last of 431
   * pages, and every list read and every write scanned them all (PostgreSQL CPU per list read 0.24
   * against 0.17 ms at 1,000; 1.4 ms for the tally's sum under EXPLAIN). The first VACUUM tells the
   * free space map that the front pages are free, so the compaction's rows land there; the second,
   * which also clears the dead rows' index entries (left otherwise when few pages have any), leaves
   * the trailing pages empty, and VACUUM returns trailing empty pages to the file system. It takes
   * the table's exclusive lock only for that, only when no one waits, and gives up rather than wait.
   */
  async shrinkTally(): Promise<void> {
    const connection = this.rootEm.getConnection();
    await connection.execute('vacuum compliance_tally');
    await this.compactTally();
    await connection.execute('vacuum (index_cleanup on) compliance_tally');
  }

  /**
   * History shows the last reading of each UTC day (or ISO week), so of the days before today only
   * each day's last snapshot per framework is ever read: the others are deleted. Writes keep
   * appending (no writer waits on another), and the table holds one row per framework and day plus
   * today's.
   */
  async pruneSnapshots(): Promise<number> {
    const now = clock.now();
    const today = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
    const rows = await this.rootEm.getConnection().execute<{ n: number }[]>(
      `with superseded as (
         select id from (
           select id, row_number() over (partition by framework, date_trunc('day', taken_at at time zone 'UTC') order by taken_at desc, id desc) as rank
             from metric_snapshots where taken_at < ?) ranked
          where rank > 1),
       gone as (delete from metric_snapshots s using superseded where s.id = superseded.id returning 1)
       select count(*)::int as n from gone`,
      [today],
    );
    return Number(rows[0]?.n ?? 0);
  }

  /** Maps requirements stored before clause mapping existed (once, under the start-up lock); deleted ones too, since their record is kept whole. */
  async backfillClauses(): Promise<number> {
    const em = this.rootEm.fork() as EntityManager;
    let done = 0;
    for (;;) {
      const rows = await em.find(Requirement, { clauses: null }, { limit: 500, orderBy: { id: 'asc' }, filters: { [NOT_DELETED]: false } });
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

  /** The status of one framework alone. */
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
