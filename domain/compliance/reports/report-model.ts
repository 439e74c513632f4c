import type { EntityManager } from '@mikro-orm/postgresql';
import { SUPPORTED_FRAMEWORKS, getFramework, isFrameworkId } from '../catalogue';
import { AuditFinding } from '../findings/audit-finding.entity';
import { Requirement, type Priority, type RequirementStatus } from '../requirements/requirement.entity';
import { PRIORITY_WEIGHT, STATUS_CREDIT, levelOf } from '../status/compliance-status.service';
import type { ReportFrameworkSummary, ReportKind, ReportModel } from './render';

export interface ReportScope {
  reportId: string;
  kind: ReportKind;
  framework: string | null;
  rangeStart: Date | null;
  rangeEnd: Date | null;
  includeEvidence: boolean;
  generatedAt: Date;
}

const round1 = (n: number) => Math.round(n * 10) / 10;

/**
 * Scores of the requirements a report covers, by the same rules as the live compliance status
 * (priority-weighted; completed 1, in-progress 0.5), so a report over all time agrees with it.
 */
export function summarise(requirements: Pick<Requirement, 'framework' | 'status' | 'priority'>[], frameworks: string[]): ReportModel['summary'] {
  const tally = (rows: typeof requirements): ReportFrameworkSummary & { weight: number; earned: number } => {
    let weight = 0;
    let earned = 0;
    const count = (s: RequirementStatus) => rows.filter((r) => r.status === s).length;
    for (const r of rows) {
      const w = PRIORITY_WEIGHT[r.priority as Priority] ?? PRIORITY_WEIGHT.medium;
      weight += w;
      earned += w * (STATUS_CREDIT[r.status] ?? 0);
    }
    const score = weight > 0 ? round1((100 * earned) / weight) : 0;
    return { id: '', score, status: levelOf(score, rows.length), total: rows.length, completed: count('completed'), inProgress: count('in-progress'), pending: count('pending'), weight, earned };
  };
  const perFramework = frameworks.map((id) => {
    const { weight: _w, earned: _e, ...t } = tally(requirements.filter((r) => r.framework === id));
    return { ...t, id };
  });
  return { overallScore: tally(requirements).score, frameworks: perFramework };
}

const titleOf = (kind: ReportKind, framework: string | null) => {
  const name = framework && isFrameworkId(framework) ? getFramework(framework).name : 'All frameworks';
  const label = { compliance: 'Compliance report', requirements: 'Requirements report', audit: 'Audit findings report', summary: 'Compliance summary' }[kind];
  return `${label}: ${name}`;
};

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
  const wantsFindings = scope.kind === 'compliance' || scope.kind === 'audit';

  const requirements = await em.find(Requirement, { deletedAt: null, ...byFramework, ...inRange('createdAt') }, { orderBy: { createdAt: 'asc', id: 'asc' } });
  const findings = wantsFindings ? await em.find(AuditFinding, { ...byFramework, ...inRange('discoveredAt') }, { orderBy: { discoveredAt: 'asc', id: 'asc' } }) : [];
  const frameworks = scope.framework ? [scope.framework] : [...SUPPORTED_FRAMEWORKS];

  return {
    reportId: scope.reportId,
    kind: scope.kind,
    title: titleOf(scope.kind, scope.framework),
    framework: scope.framework,
    generatedAt: scope.generatedAt.toISOString(),
    period: { start: scope.rangeStart?.toISOString() ?? null, end: scope.rangeEnd?.toISOString() ?? null },
    summary: summarise(requirements, frameworks),
    requirements: wantsRequirements && scope.kind !== 'summary'
      ? requirements.map((r) => ({
          id: r.id,
          title: r.title,
          framework: r.framework,
          status: r.status,
          priority: r.priority,
          createdAt: r.createdAt.toISOString(),
          updatedAt: r.updatedAt.toISOString(),
          validationStatus: r.validation?.status ?? null,
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
    })),
    ...(scope.includeEvidence ? { evidence: findings.filter((f) => f.evidence.length).map((f) => ({ findingId: f.id, items: [...f.evidence] })) } : {}),
  };
}
