import type { Severity } from '../findings/audit-finding.entity';

/**
 * The scoring model (docs/scoring.md). A framework's score weighs three parts and subtracts open
 * findings:
 *
 *   base  = 0.5 × coverage + 0.3 × implementation + 0.2 × validation        (each 0..100)
 *   score = min(cap, max(0, base − Σ penalty of open findings))             (one decimal)
 *
 * - coverage: share of the framework's catalogue clauses that at least one requirement maps to;
 * - implementation: priority-weighted requirement status (completed 1, in-progress ½, pending 0);
 * - validation: priority-weighted share of requirements whose latest validation passed;
 * - penalty per open (open or in-progress) finding: critical 20, high 10, medium 4, low 1;
 * - cap: any open critical finding caps the score at 39.9 (non-compliant), any open high one at 69.9.
 *
 * Pure: the same function scores the live status, the dashboard, reports and the gate.
 */
export const SCORE_WEIGHTS = Object.freeze({ coverage: 0.5, implementation: 0.3, validation: 0.2 });
export const FINDING_PENALTY: Readonly<Record<Severity, number>> = Object.freeze({ critical: 20, high: 10, medium: 4, low: 1 });
export const FINDING_CAP: Readonly<Partial<Record<Severity, number>>> = Object.freeze({ critical: 39.9, high: 69.9 });

export type OpenFindingCounts = Record<Severity, number>;
export const noOpenFindings = (): OpenFindingCounts => ({ critical: 0, high: 0, medium: 0, low: 0 });

export interface ScoreInputs {
  /** Clauses in the framework's catalogue. */
  clauses: number;
  /** Clauses at least one (undeleted) requirement maps to. */
  coveredClauses: number;
  /** Requirements counted. */
  requirements: number;
  /** Σ priority weight of the requirements. */
  weight: number;
  /** Σ weight × status credit. */
  earned: number;
  /** Σ weight of requirements whose latest validation passed. */
  validatedWeight: number;
  openFindings: OpenFindingCounts;
}

export interface ScoreParts {
  coverage: { clauses: number; covered: number; percent: number };
  /** 0..100 */
  implementation: number;
  /** 0..100 */
  validation: number;
  /** Weighted sum of the three parts, before findings. */
  base: number;
  findings: { open: OpenFindingCounts; penalty: number; cap: number | null };
  weights: { coverage: number; implementation: number; validation: number };
}

const round1 = (n: number) => Math.round(n * 10) / 10;

export function scoreParts(i: ScoreInputs): { score: number; parts: ScoreParts } {
  const coverage = i.clauses > 0 ? (100 * i.coveredClauses) / i.clauses : 0;
  const implementation = i.weight > 0 ? (100 * i.earned) / i.weight : 0;
  const validation = i.weight > 0 ? (100 * i.validatedWeight) / i.weight : 0;
  const base = SCORE_WEIGHTS.coverage * coverage + SCORE_WEIGHTS.implementation * implementation + SCORE_WEIGHTS.validation * validation;
  const open = { ...i.openFindings };
  const penalty = (Object.keys(FINDING_PENALTY) as Severity[]).reduce((sum, s) => sum + FINDING_PENALTY[s] * (open[s] ?? 0), 0);
  const caps = (Object.keys(FINDING_CAP) as Severity[]).filter((s) => (open[s] ?? 0) > 0).map((s) => FINDING_CAP[s]!);
  const cap = caps.length ? Math.min(...caps) : null;
  const score = i.requirements === 0 ? 0 : round1(Math.min(cap ?? 100, Math.max(0, base - penalty)));
  return {
    score,
    parts: {
      coverage: { clauses: i.clauses, covered: i.coveredClauses, percent: round1(coverage) },
      implementation: round1(implementation),
      validation: round1(validation),
      base: round1(base),
      findings: { open, penalty, cap },
      weights: { ...SCORE_WEIGHTS },
    },
  };
}
