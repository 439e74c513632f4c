import type { EntityManager } from '@mikro-orm/postgresql';
import { SUPPORTED_FRAMEWORKS, getFramework, isFrameworkId } from '../catalogue';
import { AuditFinding, type Severity } from '../findings/audit-finding.entity';
import { noOpenFindings, scoreParts } from '../status/scoring';
import { buildTraceability } from '../traceability/traceability.service';

/** Shown when `ORGANISATION_NAME` is not set, so a report never looks as if it named one. */
export const UNNAMED_ORGANISATION = 'Organisation not configured (ORGANISATION_NAME)';
/** The framework column of a requirement not yet assigned to one (listed, not scored). */
export const UNASSIGNED = 'unassigned';
import { Requirement, type Priority, type RequirementStatus } from '../requirements/requirement.entity';
import { PRIORITY_WEIGHT, STATUS_CREDIT, levelOf } from '../status/measurement';
import type { ReportFrameworkSummary, ReportKind, ReportModel } from './render';

export interface ReportScope {
  reportId: string;
  kind: ReportKind;
  framework: string | null;
  rangeStart: Date | null;
  rangeEnd: Date | null;
  includeEvidence: boolean;
  /** False when the requester may not read findings (`read:audits`): none are listed, in any section. */
  includeFindings?: boolean;
  generatedAt: Date;
  organisation?: string;
  requestedBy?: { keyId: string | null; name: string } | null;
  requestedAt?: Date | null;
  title?: string | null;
}

type ScoredRequirement = Pick<Requirement, 'framework' | 'status' | 'priority'> & { clauses?: string[] | null; validation?: { status: string } | null };
type ScoredFinding = Pick<AuditFinding, 'framework' | 'severity' | 'status'>;

/**
 * Scores of what a report covers by the same model as the live status (docs/scoring.md): clause
 * coverage, requirement status and validation of the requirements in it, less its open findings;
 * so a report over all time agrees with the status.
 */
export function summarise(requirements: ScoredRequirement[], frameworks: string[], findings: ScoredFinding[] = []): ReportModel['summary'] {
  const perFramework = frameworks.map((id): ReportFrameworkSummary => {
    const rows = requirements.filter((r) => r.framework === id);
    let weight = 0;
    let earned = 0;
    let validatedWeight = 0;
    const covered = new Set<string>();
    for (const r of rows) {
      const w = PRIORITY_WEIGHT[r.priority as Priority] ?? PRIORITY_WEIGHT.medium;
      weight += w;
      earned += w * (STATUS_CREDIT[r.status] ?? 0);
      if (r.validation?.status === 'passed') validatedWeight += w;
      for (const c of r.clauses ?? []) covered.add(c);
    }
    const open = noOpenFindings();
    for (const f of findings) if (f.framework === id && f.status !== 'resolved' && f.severity in open) open[f.severity as Severity] += 1;
    const clauses = isFrameworkId(id) ? getFramework(id).clauses.map((c) => c.section) : [];
    const { score, parts } = scoreParts({
      clauses: clauses.length,
      coveredClauses: clauses.filter((c) => covered.has(c)).length,
      requirements: rows.length,
      weight,
      earned,
      validatedWeight,
      openFindings: open,
    });
    const count = (st: RequirementStatus) => rows.filter((r) => r.status === st).length;
    return {
      id,
      score,
      status: levelOf(score, rows.length),
      total: rows.length,
      completed: count('completed'),
      inProgress: count('in-progress'),
      pending: count('pending'),
      scoring: parts,
    };
  });
  const assessed = perFramework.filter((f) => f.total > 0);
  const overallScore = assessed.length ? Math.round((10 * assessed.reduce((sum, f) => sum + f.score, 0)) / assessed.length) / 10 : 0;
  return { overallScore, frameworks: perFramework };
}

const titleOf = (kind: ReportKind, framework: string | null) => {
  const name = framework && isFrameworkId(framework) ? getFramework(framework).name : 'All frameworks';
  const label = { compliance: 'Compliance report', requirements: 'Requirements report', audit: 'Audit findings report', summary: 'Compliance summary' }[kind];
  return `${label}: ${name}`;
};

/** Rows read per statement when gathering a report: each page is hydrated, then the event loop gets a turn. */
const REPORT_PAGE = 1000;

/**
 * Every row matching `where`, in (`timeField`, id) order, read a page at a time by keyset (issue 37:
 * 10,000 requirements hydrated in one go held the event loop for seconds).
 */
async function inPages<T extends { id: string }>(
  em: EntityManager,
  entity: new () => T,
  where: Record<string, unknown>,
  timeField: keyof T & string,
): Promise<T[]> {
  const out: T[] = [];
  let last: T | undefined;
  for (;;) {
    const after = last ? { $or: [{ [timeField]: { $gt: last[timeField] } }, { [timeField]: last[timeField], id: { $gt: last.id } }] } : {};
    const page = (await em.find(entity as never, { $and: [where, after] } as never, {
      orderBy: { [timeField]: 'asc', id: 'asc' } as never,
      limit: REPORT_PAGE,
    })) as T[];
    out.push(...page);
    if (page.length < REPORT_PAGE) return out;
    last = page[page.length - 1];
    await new Promise((r) => setImmediate(r));
  }
}

/**
 * Gathers what a report shows: requirements created and findings discovered within the range (for
 * its framework, or all), and the scores of those requirements. Deleted requirements are left out.
 */
export async function buildReportModel(em: EntityManager, scope: ReportScope): Promise<ReportModel> {
  const inRange = (field: 'createdAt' | 'discoveredAt') => {
    const cond: Record<string, Date> = {};
    if (scope.rangeStart) cond.$gte = scope.rangeStart;
    if (scope.rangeEnd) cond.$lte = scope.rangeEnd;
    return Object.keys(cond).length ? { [field]: cond } : {};
  };
  const byFramework = scope.framework ? { framework: scope.framework } : {};
  const wantsRequirements = scope.kind !== 'audit';
  const readsFindings = scope.includeFindings !== false;
  const wantsFindings = readsFindings && (scope.kind === 'compliance' || scope.kind === 'audit');

  const requirements = await inPages(em, Requirement, { deletedAt: null, ...byFramework, ...inRange('createdAt') }, 'createdAt');
  // Findings always count towards the score; only the report types that list them show them.
  const allFindings = await inPages(em, AuditFinding, { ...byFramework, ...inRange('discoveredAt') }, 'discoveredAt');
  const findings = wantsFindings ? allFindings : [];
  const frameworks = scope.framework ? [scope.framework] : [...SUPPORTED_FRAMEWORKS];

  const traceability =
    scope.kind === 'compliance' && scope.framework && isFrameworkId(scope.framework)
      ? await buildTraceability(em, scope.framework, { includeFindings: readsFindings, now: scope.generatedAt })
      : null;

  return {
    reportId: scope.reportId,
    kind: scope.kind,
    title: scope.title ?? titleOf(scope.kind, scope.framework),
    framework: scope.framework,
    generatedAt: scope.generatedAt.toISOString(),
    period: { start: scope.rangeStart?.toISOString() ?? null, end: scope.rangeEnd?.toISOString() ?? null },
    organisation: scope.organisation ?? UNNAMED_ORGANISATION,
    requestedBy: scope.requestedBy ?? null,
    requestedAt: scope.requestedAt?.toISOString() ?? null,
    scope: {
      frameworks,
      includeEvidence: scope.includeEvidence,
      basis:
        (scope.rangeStart || scope.rangeEnd ? 'requirements created and findings discovered in the period' : 'every requirement and finding') +
        (readsFindings ? '' : '; findings withheld (the requesting key lacks read:audits)'),
    },
    summary: summarise(requirements, frameworks, allFindings),
    requirements:
      wantsRequirements && scope.kind !== 'summary'
        ? requirements.map((r) => ({
            id: r.id,
            title: r.title,
            framework: r.framework ?? UNASSIGNED,
            status: r.status,
            priority: r.priority,
            createdAt: r.createdAt.toISOString(),
            updatedAt: r.updatedAt.toISOString(),
            validationStatus: r.validation?.status ?? null,
            description: r.description ?? null,
            acceptanceCriteria: [...(r.acceptanceCriteria ?? [])],
            clauses: [...(r.clauses ?? [])],
            validationScore: r.validation?.score ?? null,
            validatedAt: r.validation?.lastValidated ?? null,
          }))
        : [],
    findings: findings.map((f) => ({
      id: f.id,
      title: f.title,
      framework: f.framework,
      severity: f.severity,
      status: f.status,
      discoveredAt: f.discoveredAt.toISOString(),
      dueDate: f.dueDate?.toISOString() ?? null,
      resolvedAt: f.resolvedAt?.toISOString() ?? null,
      description: f.description ?? null,
      requirementId: f.requirementId ?? null,
      resolution: f.resolution ?? null,
      ...(scope.includeEvidence ? { evidence: [...(f.evidence ?? [])] } : {}),
    })),
    ...(scope.includeEvidence ? { evidence: findings.filter((f) => f.evidence.length).map((f) => ({ findingId: f.id, items: [...f.evidence] })) } : {}),
    traceability,
  };
}
