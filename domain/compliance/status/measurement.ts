import { SUPPORTED_FRAMEWORKS, type FrameworkId } from '../catalogue';
import { getFramework } from '../catalogue';
import type { Severity } from '../findings/audit-finding.entity';
import type { Priority, RequirementStatus } from '../requirements/requirement.entity';
import { noOpenFindings, scoreParts, type OpenFindingCounts, type ScoreParts } from './scoring';

/**
 * The numbers behind a compliance score, folded from the tally's buckets: levels, weights and the
 * measure of each framework and overall. Pure: what reads the tally and what keeps it small live in
 * compliance-status.service.ts and compliance-upkeep.ts.
 */

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
  /** Requirements not yet assigned to a framework: counted overall (they are requirements), in no framework's score. */
  unassigned: number;
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

const emptyTally = (): Tally => ({
  weight: 0,
  earned: 0,
  validatedWeight: 0,
  total: 0,
  completed: 0,
  inProgress: 0,
  pending: 0,
  passed: 0,
  covered: new Set(),
  open: noOpenFindings(),
});

function counts(t: Tally) {
  const pct = (n: number) => (t.total > 0 ? round1((100 * n) / t.total) : 0);
  return {
    total: t.total,
    completed: t.completed,
    inProgress: t.inProgress,
    pending: t.pending,
    completionRate: pct(t.completed),
    validationRate: pct(t.passed),
  };
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
export interface TallyRow {
  kind: 'r' | 'c' | 'f';
  /** Null: requirements not yet assigned to a framework. */
  framework: string | null;
  status: RequirementStatus | null;
  priority: Priority | null;
  clause: string | null;
  severity: Severity | null;
  n: number;
  passed: number;
}

/** Folds the tally's buckets into the figures of each framework and overall. */
export function measurementOf(rows: TallyRow[]): Measurement {
  const overall = emptyTally();
  const byFramework = Object.fromEntries(SUPPORTED_FRAMEWORKS.map((f) => [f, emptyTally()])) as Record<FrameworkId, Tally>;
  let unassigned = 0;
  for (const r of rows) {
    if (r.kind === 'r' && r.framework === null) unassigned += Number(r.n);
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
  return { overall: overallMeasure(overall, Object.values(frameworks)), frameworks, unassigned };
}

export const sameMeasure = (a: Measure, b: Measure) =>
  a.score === b.score && a.status === b.status && a.completionRate === b.completionRate && a.validationRate === b.validationRate && a.total === b.total;
