import { preparedRows } from '../../database/prepared-reads';
import { isoOfNullableTimestamp, isoOfTimestamp } from '../../database/timestamps';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Page } from '../requirements/requirement.views';
import type { FindingView } from './finding-view';

/**
 * A finding read for a projection (issue #36, part 2): the columns of the asked-for fields only
 * (`evidence`, JSONB, only when asked for). `id` and `requirement_id` are always read (nested reads
 * group by the requirement), and `discovered_at` (pages are ordered by it).
 */
export type FindingField = keyof FindingView;
type Row = Record<string, unknown>;

const FIELDS: Record<FindingField, [column: string, value: (r: Row) => unknown]> = {
  id: ['id', (r) => r.id],
  title: ['title', (r) => r.title],
  description: ['description', (r) => r.description ?? null],
  framework: ['framework', (r) => r.framework],
  requirementId: ['requirement_id', (r) => r.requirement_id ?? null],
  severity: ['severity', (r) => r.severity],
  status: ['status', (r) => r.status],
  evidence: ['evidence', (r) => r.evidence ?? []],
  resolution: ['resolution', (r) => r.resolution ?? null],
  resolvedAt: ['resolved_at', (r) => isoOfNullableTimestamp(r.resolved_at as Date | string | null)],
  discoveredAt: ['discovered_at', (r) => isoOfTimestamp(r.discovered_at as Date | string)],
  dueDate: ['due_date', (r) => isoOfNullableTimestamp(r.due_date as Date | string | null)],
  createdAt: ['created_at', (r) => isoOfTimestamp(r.created_at as Date | string)],
  updatedAt: ['updated_at', (r) => isoOfTimestamp(r.updated_at as Date | string)],
};
const ALL = Object.keys(FIELDS) as FindingField[];

/** The known fields among `names`, in a fixed order (one loader and cache key per set), `id` always. */
export function findingProjection(names: Iterable<string>): FindingField[] {
  const wanted = new Set(['id', ...names]);
  return ALL.filter((f) => wanted.has(f));
}

export const findingColumnsOf = (fields: readonly FindingField[]) =>
  [...new Set(['id', 'requirement_id', 'discovered_at', ...fields.map((f) => FIELDS[f][0])])].join(', ');

/**
 * The findings of the requirement `requirementId` names, newest first, as one JSON array of rows
 * keyed by column (what `projectedFindingOfRow` reads), for a requirement page to read beside each
 * requirement: a GraphQL page and its findings in one statement instead of two. JSON timestamps are
 * ISO text, which `isoOfTimestamp` reads as well.
 */
export const findingsJsonOf = (fields: readonly FindingField[], requirementId: string) =>
  `(select coalesce(json_agg(json_build_object(${[...new Set(['id', ...fields.map((f) => FIELDS[f][0])])]
    .map((c) => `'${c}', f.${c}`)
    .join(', ')}) order by f.discovered_at desc, f.id desc), '[]'::json) from audit_findings f where f.requirement_id = ${requirementId})`;

export function projectedFindingOfRow(r: Row, fields: readonly FindingField[]): FindingView {
  const out: Row = {};
  for (const f of fields) out[f] = FIELDS[f][1](r);
  return out as unknown as FindingView;
}

const FILTER_COLUMNS = [
  ['framework', 'framework'],
  ['severity', 'severity'],
  ['status', 'status'],
  ['requirementId', 'requirement_id'],
] as const;

/**
 * A page of findings with the projected fields only, newest first, and its total, in one statement
 * (the total beside the page, as requirement pages read theirs).
 */
export async function readFindingPage(
  em: EntityManager,
  q: { framework?: string; severity?: string; status?: string; requirementId?: string; limit: number; offset: number },
  fields: readonly FindingField[],
): Promise<Page<FindingView>> {
  const where = ['true'];
  const params: unknown[] = [];
  for (const [key, column] of FILTER_COLUMNS) {
    if (!q[key]) continue;
    where.push(`${column} = ?`);
    params.push(q[key]);
  }
  const filter = where.join(' and ');
  // Prepared once per connection on a server (prepared-reads.ts), as the requirement page is.
  const found = await preparedRows<Row>(
    em,
    `select t.page_total, f.* from (select count(*)::int as page_total from audit_findings where ${filter}) t ` +
      `left join lateral (select ${findingColumnsOf(fields)} from audit_findings where ${filter} order by discovered_at desc, id desc limit ? offset ?) f on true ` +
      `order by f.discovered_at desc, f.id desc`,
    [...params, ...params, q.limit, q.offset],
  );
  const total = Number(found[0]?.page_total ?? 0);
  const rows = found.length === 1 && found[0].id === null ? [] : found;
  return {
    data: rows.map((r) => projectedFindingOfRow(r, fields)),
    pagination: { total, limit: q.limit, offset: q.offset, hasMore: q.offset + rows.length < total },
  };
}
