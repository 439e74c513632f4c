import type { EntityManager } from '@mikro-orm/postgresql';
import type { z } from 'zod';
import { clock } from '../../clock';
import { preparedRows } from '../../database/prepared-reads';
import { isoOfTimestamp } from '../../database/timestamps';
import { newId } from '../../ids';
import type { NewRows } from '../change-runner';
import { clausesOf } from './clauses';
import type { CreateRequirementInput, ListRequirementsQuery } from './requirement.inputs';
import { NOT_DELETED_SQL, Requirement, type Implementation, type RequirementStatus, type TechnicalContext, type ValidationState } from './requirement.entity';
import type { Page, RequirementDetail, RequirementListItem } from './requirement.views';
import { projectedRequirementOfRow, requirementColumnsOf, type RequirementField } from './requirement.projection';
import { findingsJsonOf, projectedFindingOfRow, type FindingField } from '../findings/finding.projection';
import type { FindingView } from '../findings/finding-view';

/**
 * Requirements as rows: the list page read straight from SQL (with its total from the tally), a new
 * requirement written as a plain row, and the lookup by id. Reads here skip the ORM's identity map
 * and hydration: a list is read-only, so they would be cost without use.
 */

/** A `requirements` row as the driver returns it (json columns parsed, timestamps as Date). */
interface RequirementRow {
  id: string;
  title: string;
  description: string | null;
  framework: string;
  status: RequirementStatus;
  priority: string;
  created_at: Date | string;
  updated_at: Date | string;
  category?: string | null;
  acceptance_criteria?: string[] | null;
  technical_context?: TechnicalContext | null;
  implementation?: Implementation | null;
  validation?: ValidationState | null;
}

const REQUIREMENT_LIST_COLUMNS = 'id, title, description, framework, status, priority, created_at, updated_at';
const REQUIREMENT_DETAIL_COLUMNS = `${REQUIREMENT_LIST_COLUMNS}, category, acceptance_criteria, technical_context, implementation, validation`;

const listItemOfRow = (r: RequirementRow): RequirementListItem => ({
  id: r.id,
  title: r.title,
  description: r.description ?? null,
  framework: r.framework,
  status: r.status,
  priority: r.priority,
  createdAt: isoOfTimestamp(r.created_at),
  updatedAt: isoOfTimestamp(r.updated_at),
});

// Every field written out rather than `...listItemOfRow(r)`: V8 builds an object spread into a
// literal with more fields on a slow path (about 20 µs a row against 0.6 µs, measured on Node 20).
const detailOfRow = (r: RequirementRow): RequirementDetail => ({
  id: r.id,
  title: r.title,
  description: r.description ?? null,
  framework: r.framework,
  status: r.status,
  priority: r.priority,
  createdAt: isoOfTimestamp(r.created_at),
  updatedAt: isoOfTimestamp(r.updated_at),
  category: r.category ?? null,
  acceptanceCriteria: r.acceptance_criteria ?? [],
  technicalContext: r.technical_context ?? null,
  implementation: r.implementation ?? null,
  validation: r.validation ?? null,
});

/** A page, and when asked for, each requirement's findings (in the order of `data`). */
export type RequirementPage<T = RequirementListItem | RequirementDetail> = Page<T> & { findings?: FindingView[][] };

/**
 * One page, read as rows and mapped straight to views: a list is read-only, so the identity map,
 * change tracking and entity hydration the ORM would add are cost without use.
 */
export async function readRequirementPage(
  em: EntityManager,
  q: z.output<typeof ListRequirementsQuery>,
  detail: boolean,
  fields?: readonly RequirementField[],
  findings?: readonly FindingField[],
): Promise<RequirementPage> {
  const where = [NOT_DELETED_SQL];
  const params: unknown[] = [];
  for (const [column, value] of [
    ['framework', q.framework],
    ['status', q.status],
    ['priority', q.priority],
  ] as const) {
    if (value === undefined) continue;
    where.push(`${column} = ?`);
    params.push(value);
  }
  // Unassigned requirements (no framework) count in the tally too, under a null framework.
  if (q.unassigned !== undefined) where.push(q.unassigned ? 'framework is null' : 'framework is not null');
  const filter = where.join(' and ');
  const tallyFilter = where.slice(1).concat('true').join(' and ');
  let columns = fields ? requirementColumnsOf(fields) : detail ? REQUIREMENT_DETAIL_COLUMNS : REQUIREMENT_LIST_COLUMNS;
  if (findings) columns += `, ${findingsJsonOf(findings, 'requirements.id')} as page_findings`;
  // One statement: the total from the tally (one row per framework, status and priority: counting
  // the rows would cost as many as there are), and beside it the page, newest first (the id breaks
  // ties between rows created in the same millisecond, so pages are stable). A page past the end
  // still answers one row, the total with no requirement. One statement instead of two saves a
  // round trip per list (the embedded database pays for each statement) and reads the total and the
  // page from one snapshot.
  // Prepared once per connection on a server: planning this statement costs more than running it.
  const found = await preparedRows<RequirementRow & { page_total: number }>(
    em,
    `select t.page_total, r.* from (select coalesce(sum(n), 0)::int as page_total from compliance_tally where kind = 'r' and ${tallyFilter}) t ` +
      `left join lateral (select ${columns} from requirements where ${filter} order by created_at desc, id desc limit ? offset ?) r on true ` +
      `order by r.created_at desc, r.id desc`,
    [...params, ...params, q.limit, q.offset],
  );
  const total = Number(found[0]?.page_total ?? 0);
  const rows = found.length === 1 && found[0].id === null ? [] : found;
  const page: RequirementPage = {
    // A projection's views carry the asked-for fields only (GraphQL resolves nothing else from them).
    data: fields
      ? rows.map((r) => projectedRequirementOfRow(r as unknown as Record<string, unknown>, fields) as RequirementDetail)
      : rows.map(detail ? detailOfRow : listItemOfRow),
    pagination: { total, limit: q.limit, offset: q.offset, hasMore: q.offset + rows.length < total },
  };
  if (findings)
    page.findings = rows.map((r) => ((r as { page_findings?: Record<string, unknown>[] }).page_findings ?? []).map((f) => projectedFindingOfRow(f, findings)));
  return page;
}

/**
 * A new requirement as a plain `requirements` row for the change to insert, and its view (what the
 * entity's view would be: `requirementDetail` of the same values). No entity: the change's
 * transaction writes the row without the unit of work.
 */
export function insertRequirement(change: NewRows, input: z.output<typeof CreateRequirementInput>): RequirementDetail {
  const now = clock.now();
  const at = now.toISOString();
  const view: RequirementDetail = {
    id: newId('req'),
    title: input.title,
    description: input.description ?? null,
    framework: input.framework ?? null,
    status: 'pending',
    priority: input.priority,
    createdAt: at,
    updatedAt: at,
    category: input.category ?? null,
    acceptanceCriteria: input.acceptanceCriteria,
    technicalContext: input.technicalContext ? compact(input.technicalContext) : null,
    implementation: input.implementation ? compact(input.implementation) : null,
    validation: null,
  };
  change.insert('requirements', {
    id: view.id,
    title: view.title,
    description: view.description,
    framework: view.framework,
    category: view.category,
    priority: view.priority,
    status: view.status,
    acceptance_criteria: JSON.stringify(view.acceptanceCriteria),
    technical_context: view.technicalContext === null ? null : JSON.stringify(view.technicalContext),
    implementation: view.implementation === null ? null : JSON.stringify(view.implementation),
    validation: null,
    clauses: JSON.stringify(clausesOf(input)),
    created_at: now,
    updated_at: now,
    deleted_at: null,
  });
  return view;
}

/**
 * A requirement that is not deleted, by id. The soft-delete filter applies to queries only, and a
 * lookup by primary key is answered from the identity map when the entity is there: a requirement
 * deleted earlier in the same request (two mutations in one document) would be found.
 * `refresh` always asks the database, through the filter.
 */
export function findRequirement(em: EntityManager, id: string): Promise<Requirement | null> {
  return em.findOne(Requirement, { id }, { refresh: true });
}

/** Drops undefined members so JSON columns hold only what was given. */
export function compact<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}
