/**
 * The scoring model of docs/scoring.md, restated independently of the domain code so tests check
 * the published formula: score = min(cap, max(0, 0.5·coverage + 0.3·implementation + 0.2·validation − penalty)).
 * The parts come rounded to one decimal, so the restated score may differ from the served one by 0.1.
 */
export interface ServedParts {
  coverage: { clauses: number; covered: number; percent: number };
  implementation: number;
  validation: number;
  base: number;
  findings: { open: { critical: number; high: number; medium: number; low: number }; penalty: number; cap: number | null };
}

export function scoreByDocumentedModel(p: ServedParts): number {
  const coverage = (100 * p.coverage.covered) / p.coverage.clauses;
  const base = 0.5 * coverage + 0.3 * p.implementation + 0.2 * p.validation;
  const o = p.findings.open;
  const penalty = 20 * o.critical + 10 * o.high + 4 * o.medium + 1 * o.low;
  const cap = o.critical > 0 ? 39.9 : o.high > 0 ? 69.9 : 100;
  return Math.min(cap, Math.max(0, base - penalty));
}

/** Asserts a served score follows the documented model from its own parts. */
export function expectScoreByModel(served: { score: number; scoring: ServedParts }) {
  expect(Math.abs(served.score - scoreByDocumentedModel(served.scoring))).toBeLessThanOrEqual(0.1);
}
