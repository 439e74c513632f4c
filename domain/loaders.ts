import DataLoader from 'dataloader';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { FindingView } from './compliance/findings/finding-view';
import { findingColumnsOf, projectedFindingOfRow, type FindingField } from './compliance/findings/finding.projection';

/**
 * Batches the lookups nested reads would otherwise make one by one: a page of 500
 * requirements with their findings costs one findings query, not 500.
 *
 * The rows are read as rows and mapped straight to views: nested reads only read, so the identity
 * map, change tracking and entity hydration of the ORM were most of the cost of a GraphQL page
 * (docs/decisions.md, "Nested findings read as rows"). Through the ORM's connection all the same, so
 * the request's transaction (if any), the database guard and the statement count see the query.
 * One loader per projection (the fields a selection asks for, `findingProjection`): only their
 * columns are read, and a request selecting findings one way batches all of them into one query.
 */
export function createLoaders(em: EntityManager) {
  const byProjection = new Map<string, DataLoader<string, FindingView[]>>();
  const findingsLoader = (fields: readonly FindingField[]) =>
    new DataLoader<string, FindingView[]>(async (ids) => {
      const rows = await em
        .getConnection()
        .execute<Record<string, unknown>[]>(
          `select ${findingColumnsOf(fields)} from audit_findings where requirement_id in (?) order by discovered_at desc, id desc`,
          [ids],
          'all',
          em.getTransactionContext(),
        );
      const byId = new Map<string, FindingView[]>();
      for (const row of rows) {
        const f = projectedFindingOfRow(row, fields);
        const owner = row.requirement_id as string;
        const list = byId.get(owner);
        if (list) list.push(f);
        else byId.set(owner, [f]);
      }
      return ids.map((id) => byId.get(id) ?? []);
    });
  // A page's field resolver asks once per row with the same projection array: found by identity first.
  const byArray = new WeakMap<readonly FindingField[], DataLoader<string, FindingView[]>>();
  return {
    /**
     * Findings read in a page's own statement, by the requirement view they belong to: the field
     * resolver answers them as they are, with no promise per row (the page's findings carry every
     * field any `findings` selection of the document asks for).
     */
    pageFindings: new WeakMap<object, FindingView[]>(),
    /** The findings of requirements, with the fields of `fields` (a `findingProjection`). */
    findingsByRequirement(fields: readonly FindingField[]): DataLoader<string, FindingView[]> {
      let loader = byArray.get(fields);
      if (loader) return loader;
      const key = fields.join(',');
      loader = byProjection.get(key);
      if (!loader) byProjection.set(key, (loader = findingsLoader(fields)));
      byArray.set(fields, loader);
      return loader;
    },
  };
}

export type Loaders = ReturnType<typeof createLoaders>;
