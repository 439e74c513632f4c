import { isoOfTimestamp } from '../../database/timestamps';
import type { RequirementDetail } from './requirement.views';

/**
 * Reading only what a caller asks for (issue #36, part 2): a GraphQL selection names the fields of
 * a requirement it wants; each maps to its column here, and a page read for a projection reads those
 * columns only (the JSONB ones only when one of their fields is asked for). `id` and `created_at`
 * are always read: a page is ordered by them and nested reads key on the id.
 */
export type RequirementField = keyof RequirementDetail;

const FIELD_COLUMNS: Record<RequirementField, string> = {
  id: 'id',
  title: 'title',
  description: 'description',
  framework: 'framework',
  status: 'status',
  priority: 'priority',
  createdAt: 'created_at',
  updatedAt: 'updated_at',
  category: 'category',
  acceptanceCriteria: 'acceptance_criteria',
  technicalContext: 'technical_context',
  implementation: 'implementation',
  validation: 'validation',
};

export const REQUIREMENT_FIELDS = Object.keys(FIELD_COLUMNS) as RequirementField[];
export const isRequirementField = (name: string): name is RequirementField => Object.hasOwn(FIELD_COLUMNS, name);

/** The fields of a projection, known ones only, in a fixed order (one cache key per set). */
export function requirementProjection(fields: Iterable<string>): RequirementField[] {
  const wanted = new Set(['id', ...fields]);
  return REQUIREMENT_FIELDS.filter((f) => wanted.has(f));
}

export const requirementColumnsOf = (fields: readonly RequirementField[]) =>
  [...new Set(['id', 'created_at', ...fields.map((f) => FIELD_COLUMNS[f])])].join(', ');

type Row = Record<string, unknown>;
const VALUE_OF: Record<RequirementField, (r: Row) => unknown> = {
  id: (r) => r.id,
  title: (r) => r.title,
  description: (r) => r.description ?? null,
  framework: (r) => r.framework,
  status: (r) => r.status,
  priority: (r) => r.priority,
  createdAt: (r) => isoOfTimestamp(r.created_at as Date | string),
  updatedAt: (r) => isoOfTimestamp(r.updated_at as Date | string),
  category: (r) => r.category ?? null,
  acceptanceCriteria: (r) => r.acceptance_criteria ?? [],
  technicalContext: (r) => r.technical_context ?? null,
  implementation: (r) => r.implementation ?? null,
  validation: (r) => r.validation ?? null,
};

/** The projected fields of a row's view (the others absent: nobody asked for them). */
export function projectedRequirementOfRow(r: Row, fields: readonly RequirementField[]): Partial<RequirementDetail> & { id: string } {
  const out: Row = {};
  for (const f of fields) out[f] = VALUE_OF[f](r);
  return out as Partial<RequirementDetail> & { id: string };
}
