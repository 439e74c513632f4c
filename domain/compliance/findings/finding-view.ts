import { isoOfNullableTimestamp, isoOfTimestamp } from '../../database/timestamps';
import type { AuditFinding } from './audit-finding.entity';

export interface FindingView {
  id: string;
  title: string;
  description: string | null;
  framework: string;
  requirementId: string | null;
  severity: string;
  status: string;
  evidence: string[];
  resolution: string | null;
  resolvedAt: string | null;
  discoveredAt: string;
  dueDate: string | null;
  createdAt: string;
  updatedAt: string;
}

const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);

export const findingView = (f: AuditFinding): FindingView => ({
  id: f.id,
  title: f.title,
  description: f.description ?? null,
  framework: f.framework,
  requirementId: f.requirementId ?? null,
  severity: f.severity,
  status: f.status,
  evidence: f.evidence ?? [],
  resolution: f.resolution ?? null,
  resolvedAt: iso(f.resolvedAt),
  discoveredAt: f.discoveredAt.toISOString(),
  dueDate: iso(f.dueDate),
  createdAt: f.createdAt.toISOString(),
  updatedAt: f.updatedAt.toISOString(),
});

/** An `audit_findings` row as the driver returns it (json parsed, timestamps as PostgreSQL's text). */
export interface FindingRow {
  id: string;
  title: string;
  description: string | null;
  framework: string;
  requirement_id: string | null;
  severity: string;
  status: string;
  evidence: string[] | null;
  resolution: string | null;
  resolved_at: string | Date | null;
  discovered_at: string | Date;
  due_date: string | Date | null;
  created_at: string | Date;
  updated_at: string | Date;
}

export const FINDING_COLUMNS =
  'id, title, description, framework, requirement_id, severity, status, evidence, resolution, resolved_at, discovered_at, due_date, created_at, updated_at';

/** The same view from a row read without the ORM (read-only lists: no identity map, no hydration). */
export const findingViewOfRow = (r: FindingRow): FindingView => ({
  id: r.id,
  title: r.title,
  description: r.description ?? null,
  framework: r.framework,
  requirementId: r.requirement_id ?? null,
  severity: r.severity,
  status: r.status,
  evidence: r.evidence ?? [],
  resolution: r.resolution ?? null,
  resolvedAt: isoOfNullableTimestamp(r.resolved_at),
  discoveredAt: isoOfTimestamp(r.discovered_at),
  dueDate: isoOfNullableTimestamp(r.due_date),
  createdAt: isoOfTimestamp(r.created_at),
  updatedAt: isoOfTimestamp(r.updated_at),
});
