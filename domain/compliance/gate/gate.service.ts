import { z } from 'zod';
import { requirePermission } from '../../auth/principal';
import type { DomainContext } from '../../context';
import { parseInput } from '../../validation';
import { SUPPORTED_FRAMEWORKS, type FrameworkId } from '../catalogue';
import { precheckFramework } from '../frameworks.service';
import type { ComplianceStatusService } from '../status/compliance-status.service';
import type { ComplianceLevel } from '../status/measurement';
import type { OpenFindingCounts, ScoreParts } from '../status/scoring';
import { clock } from '../../clock';

/** Without `minScore`, a release needs `mostly-compliant` (70). */
export const DEFAULT_MIN_SCORE = 70;

/** Numbers arrive as text (a query string) or as numbers. Both are accepted, nothing else. */
const numeric = (schema: z.ZodNumber) =>
  z.preprocess(
    (v) => (typeof v === 'string' && v.trim() !== '' && !Number.isNaN(Number(v)) ? Number(v) : v === null || v === '' ? undefined : v),
    schema.optional(),
  );

export const GateQuery = z
  .object({
    framework: z.enum(SUPPORTED_FRAMEWORKS as unknown as [string, ...string[]]),
    minScore: numeric(z.number().min(0).max(100)),
    maxOpenFindings: numeric(z.number().int().min(0).max(1_000_000)),
  })
  .strict();
export type GateQuery = z.input<typeof GateQuery>;

export type GateCheckName = 'no-open-critical-findings' | 'min-score' | 'max-open-findings';
export const GATE_CHECK_NAMES: readonly GateCheckName[] = ['no-open-critical-findings', 'min-score', 'max-open-findings'];
export const GATE_RESULTS = ['pass', 'fail'] as const;

export interface GateCheck {
  name: GateCheckName;
  passed: boolean;
  /** What was measured and the limit it was held to. */
  actual: number;
  limit: number;
  message: string;
}

export interface GateResult {
  framework: FrameworkId;
  result: (typeof GATE_RESULTS)[number];
  passed: boolean;
  /** One sentence per failed check; empty on pass. */
  reasons: string[];
  checks: GateCheck[];
  score: number;
  status: ComplianceLevel;
  thresholds: { minScore: number; maxOpenFindings: number | null };
  openFindings: OpenFindingCounts & { total: number };
  scoring: ScoreParts;
  evaluatedAt: string;
}

/**
 * The release gate for delivery pipelines: pass or fail against the live score (docs/scoring.md)
 * and the open findings. An open critical finding always fails; `minScore` defaults to 70;
 * `maxOpenFindings` (open or in progress, any severity) is checked only when given. The answer is
 * 200 either way: failing is a result, not an error; the client's `gate` command turns it into
 * an exit code.
 */
export class GateService {
  constructor(private readonly status: ComplianceStatusService) {}

  async evaluate(ctx: DomainContext, raw: unknown): Promise<GateResult> {
    requirePermission(ctx, 'read:compliance');
    precheckFramework(raw);
    const q = parseInput(GateQuery, raw ?? {});
    const framework = q.framework as FrameworkId;
    const minScore = q.minScore ?? DEFAULT_MIN_SCORE;
    const maxOpenFindings = q.maxOpenFindings ?? null;
    const m = (await this.status.measure(ctx.em)).frameworks[framework];
    const parts = m.parts!;
    const open = parts.findings.open;
    const openTotal = open.critical + open.high + open.medium + open.low;

    const checks: GateCheck[] = [
      {
        name: 'no-open-critical-findings',
        passed: open.critical === 0,
        actual: open.critical,
        limit: 0,
        message: open.critical === 0 ? 'No open critical finding' : `${open.critical} critical finding${open.critical === 1 ? ' is' : 's are'} open`,
      },
      {
        name: 'min-score',
        passed: m.score >= minScore,
        actual: m.score,
        limit: minScore,
        message: m.score >= minScore ? `Score ${m.score} meets the minimum ${minScore}` : `Score ${m.score} is below the minimum ${minScore}`,
      },
    ];
    if (maxOpenFindings !== null) {
      checks.push({
        name: 'max-open-findings',
        passed: openTotal <= maxOpenFindings,
        actual: openTotal,
        limit: maxOpenFindings,
        message:
          openTotal <= maxOpenFindings
            ? `${openTotal} open finding${openTotal === 1 ? '' : 's'}, at most ${maxOpenFindings} allowed`
            : `${openTotal} open finding${openTotal === 1 ? '' : 's'}, more than the ${maxOpenFindings} allowed`,
      });
    }
    const passed = checks.every((c) => c.passed);
    return {
      framework,
      result: passed ? 'pass' : 'fail',
      passed,
      reasons: checks.filter((c) => !c.passed).map((c) => c.message),
      checks,
      score: m.score,
      status: m.status,
      thresholds: { minScore, maxOpenFindings },
      openFindings: { ...open, total: openTotal },
      scoring: parts,
      evaluatedAt: clock.now().toISOString(),
    };
  }
}
