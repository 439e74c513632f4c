import type { HeavyWork } from '../../jobs/heavy-work';
import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { can, requirePermission } from '../../auth/principal';
import type { DomainContext } from '../../context';
import { parseInput } from '../../validation';
import { clock } from '../../clock';
import { getFramework, SUPPORTED_FRAMEWORKS, type FrameworkId } from '../catalogue';
import { AuditFinding } from '../findings/audit-finding.entity';
import { precheckFramework } from '../frameworks.service';
import { Requirement } from '../requirements/requirement.entity';
import { toCsv, type CsvCell } from '../reports/render/csv-writer';

export const TraceabilityQuery = z
  .object({
    framework: z.enum(SUPPORTED_FRAMEWORKS as unknown as [string, ...string[]]),
    format: z.enum(['json', 'csv']).optional(),
  })
  .strict();
export type TraceabilityQuery = z.input<typeof TraceabilityQuery>;

export const TRACE_EVIDENCE_KINDS = ['finding', 'test-file', 'git-branch', 'issue'] as const;

export interface TraceEvidence {
  /** `finding` (evidence attached to a finding), `test-file`, `git-branch` or `issue` (from the requirement's implementation). */
  kind: (typeof TRACE_EVIDENCE_KINDS)[number];
  value: string;
  findingId: string | null;
}

export interface TraceFinding {
  id: string;
  title: string;
  description: string | null;
  severity: string;
  status: string;
  discoveredAt: string;
  dueDate: string | null;
  resolution: string | null;
  resolvedAt: string | null;
  evidence: string[];
}

export interface TraceValidation {
  status: 'passed' | 'failed';
  score: number;
  lastValidated: string;
}

export interface TraceRequirement {
  id: string;
  title: string;
  status: string;
  priority: string;
  /** Every clause this requirement maps to (it appears under each of them). */
  clauses: string[];
  latestValidation: TraceValidation | null;
  openFindings: TraceFinding[];
  resolvedFindings: TraceFinding[];
  evidence: TraceEvidence[];
}

export interface TraceClause {
  clauseId: string;
  section: string;
  title: string;
  category: string;
  covered: boolean;
  requirements: TraceRequirement[];
}

export interface TraceabilityMatrix {
  framework: FrameworkId;
  frameworkName: string;
  version: string;
  generatedAt: string;
  /** False when the caller lacks `read:audits`: findings and their evidence are then left out, not shown empty by mistake. */
  findingsIncluded: boolean;
  /** `unassignedRequirements`: requirements not yet assigned to any framework, so in no matrix. */
  summary: {
    clauses: number;
    covered: number;
    gaps: number;
    coveragePercent: number;
    requirements: number;
    unmappedRequirements: number;
    unassignedRequirements: number;
    openFindings: number;
    resolvedFindings: number;
  };
  clauses: TraceClause[];
  /** Clauses no requirement maps to. */
  gaps: { clauseId: string; section: string; title: string; category: string }[];
  /** Requirements of the framework whose text maps to no clause. */
  unmappedRequirements: TraceRequirement[];
  /** Findings of the framework not linked to any requirement. */
  unlinkedFindings: TraceFinding[];
}

const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);

function traceFinding(f: AuditFinding): TraceFinding {
  return {
    id: f.id,
    title: f.title,
    description: f.description ?? null,
    severity: f.severity,
    status: f.status,
    discoveredAt: f.discoveredAt.toISOString(),
    dueDate: iso(f.dueDate),
    resolution: f.resolution ?? null,
    resolvedAt: iso(f.resolvedAt),
    evidence: [...(f.evidence ?? [])],
  };
}

/**
 * Builds the matrix: every catalogue clause → the requirements mapped to it → their latest
 * validation → open and resolved findings → evidence; clauses nothing maps to are gaps.
 * Three queries (requirements, findings, the count of unassigned requirements) whatever the size.
 */
export async function buildTraceability(
  em: EntityManager,
  framework: FrameworkId,
  opts: { includeFindings: boolean; now?: Date },
): Promise<TraceabilityMatrix> {
  const catalogue = getFramework(framework);
  const requirements = await em.find(Requirement, { framework }, { orderBy: { createdAt: 'asc', id: 'asc' } });
  const unassigned = await em.count(Requirement, { framework: null });
  const findings = opts.includeFindings ? await em.find(AuditFinding, { framework }, { orderBy: { discoveredAt: 'asc', id: 'asc' } }) : [];
  const byRequirement = new Map<string, AuditFinding[]>();
  for (const f of findings) if (f.requirementId) byRequirement.set(f.requirementId, [...(byRequirement.get(f.requirementId) ?? []), f]);
  const known = new Set(catalogue.clauses.map((c) => c.section));

  const traced = requirements.map((r): TraceRequirement => {
    const own = byRequirement.get(r.id) ?? [];
    const evidence: TraceEvidence[] = [];
    for (const f of own) for (const e of f.evidence ?? []) evidence.push({ kind: 'finding', value: e, findingId: f.id });
    if (r.implementation?.testFile) evidence.push({ kind: 'test-file', value: r.implementation.testFile, findingId: null });
    if (r.implementation?.gitBranch) evidence.push({ kind: 'git-branch', value: r.implementation.gitBranch, findingId: null });
    for (const issue of r.implementation?.relatedIssues ?? []) evidence.push({ kind: 'issue', value: issue, findingId: null });
    return {
      id: r.id,
      title: r.title,
      status: r.status,
      priority: r.priority,
      clauses: (r.clauses ?? []).filter((c) => known.has(c)),
      latestValidation: r.validation ? { status: r.validation.status, score: r.validation.score, lastValidated: r.validation.lastValidated } : null,
      openFindings: own.filter((f) => f.status !== 'resolved').map(traceFinding),
      resolvedFindings: own.filter((f) => f.status === 'resolved').map(traceFinding),
      evidence,
    };
  });

  const clauses = catalogue.clauses.map((c): TraceClause => {
    const mapped = traced.filter((r) => r.clauses.includes(c.section));
    return { clauseId: c.id, section: c.section, title: c.title, category: c.category, covered: mapped.length > 0, requirements: mapped };
  });
  const gaps = clauses.filter((c) => !c.covered).map(({ clauseId, section, title, category }) => ({ clauseId, section, title, category }));
  const linked = new Set(requirements.map((r) => r.id));
  const covered = clauses.length - gaps.length;
  return {
    framework,
    frameworkName: catalogue.name,
    version: catalogue.version,
    generatedAt: (opts.now ?? clock.now()).toISOString(),
    findingsIncluded: opts.includeFindings,
    summary: {
      clauses: clauses.length,
      covered,
      gaps: gaps.length,
      coveragePercent: clauses.length ? Math.round((1000 * covered) / clauses.length) / 10 : 0,
      requirements: requirements.length,
      unmappedRequirements: traced.filter((r) => r.clauses.length === 0).length,
      unassignedRequirements: unassigned,
      openFindings: findings.filter((f) => f.status !== 'resolved').length,
      resolvedFindings: findings.filter((f) => f.status === 'resolved').length,
    },
    clauses,
    gaps,
    unmappedRequirements: traced.filter((r) => r.clauses.length === 0),
    unlinkedFindings: findings.filter((f) => !f.requirementId || !linked.has(f.requirementId)).map(traceFinding),
  };
}

export const TRACEABILITY_CSV_COLUMNS = [
  'row_type',
  'clause',
  'clause_title',
  'covered',
  'requirement_id',
  'requirement_title',
  'requirement_status',
  'priority',
  'validation_status',
  'validation_score',
  'validated_at',
  'open_findings',
  'resolved_findings',
  'evidence',
] as const;

/** What a CSV row is: a clause (with one of its requirements, or none: a gap), a requirement mapped to no clause, a finding linked to no requirement. */
export const TRACEABILITY_CSV_ROW_TYPES = ['clause', 'unmapped_requirement', 'unlinked_finding'] as const;

const findingsCell = (fs: TraceFinding[]) =>
  fs.map((f) => `${f.id} (${f.severity}${f.resolvedAt ? `, resolved ${f.resolvedAt.slice(0, 10)}` : ''}): ${f.title}`).join('; ');

const requirementCells = (r: TraceRequirement): CsvCell[] => [
  r.id,
  r.title,
  r.status,
  r.priority,
  r.latestValidation?.status ?? 'not validated',
  r.latestValidation?.score ?? null,
  r.latestValidation?.lastValidated ?? null,
  findingsCell(r.openFindings),
  findingsCell(r.resolvedFindings),
  r.evidence.map((e) => `${e.kind}: ${e.value}`).join('; '),
];

/**
 * The whole matrix as CSV, the same content as the JSON: one row per clause × requirement (a gap is
 * one row with the requirement columns empty), then one per requirement mapped to no clause and one
 * per finding linked to no requirement (`row_type` says which). RFC 4180, formulas neutralised.
 */
export function traceabilityCsv(m: TraceabilityMatrix): Buffer {
  const rows: CsvCell[][] = [[...TRACEABILITY_CSV_COLUMNS]];
  for (const c of m.clauses) {
    if (!c.requirements.length) rows.push(['clause', c.section, c.title, 'no', null, null, null, null, null, null, null, null, null, null]);
    for (const r of c.requirements) rows.push(['clause', c.section, c.title, 'yes', ...requirementCells(r)]);
  }
  for (const r of m.unmappedRequirements) rows.push(['unmapped_requirement', null, null, null, ...requirementCells(r)]);
  for (const f of m.unlinkedFindings) {
    const open = f.status !== 'resolved';
    rows.push([
      'unlinked_finding',
      null,
      null,
      null,
      null,
      null,
      null,
      null,
      null,
      null,
      null,
      open ? findingsCell([f]) : null,
      open ? null : findingsCell([f]),
      f.evidence.map((e) => `finding: ${e}`).join('; '),
    ]);
  }
  return Buffer.from(toCsv(rows), 'utf8');
}

/** The traceability matrix: needs read:compliance; findings only with read:audits as well. */
export class TraceabilityService {
  /** Slots across instances, and one computation for identical requests made at once (issue 37). */
  constructor(private readonly heavy?: HeavyWork) {}

  async matrix(ctx: DomainContext, raw: unknown): Promise<TraceabilityMatrix> {
    const principal = requirePermission(ctx, 'read:compliance');
    precheckFramework(raw);
    const q = parseInput(TraceabilityQuery, raw ?? {});
    const includeFindings = can(principal, 'read:audits');
    const build = () => buildTraceability(ctx.em, q.framework as FrameworkId, { includeFindings });
    // Callers who see the same (findings or not) share one matrix: a batch of 100 builds it once.
    return this.heavy ? this.heavy.run('traceability', `${q.framework}:${includeFindings}`, build) : build();
  }
}
