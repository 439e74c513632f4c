import DataLoader from 'dataloader';
import type { EntityManager } from '@mikro-orm/postgresql';
import { FINDING_COLUMNS, findingViewOfRow, type FindingRow, type FindingView } from './compliance/findings/finding-view';

/**
 * Batches the lookups nested reads would otherwise make one by one: a page of 500
 * requirements with their findings costs one findings query, not 500.
 *
 * The rows are read as rows and mapped straight to views: nested reads only read, so the identity
 * map, change tracking and entity hydration of the ORM were most of the cost of a GraphQL page
 * (docs/decisions.md, "Nested findings read as rows"). Through the ORM's connection all the same, so
 * the request's transaction (if any), the database guard and the statement count see the query.
 */
export function createLoaders(em: EntityManager) {
  return {
    findingsByRequirement: new DataLoader<string, FindingView[]>(async (ids) => {
      const rows = await em
        .getConnection()
        .execute<FindingRow[]>(`select ${FINDING_COLUMNS} from audit_findings where requirement_id in (?) order by discovered_at desc, id desc`, [ids], 'all', em.getTransactionContext());
      const byId = new Map<string, FindingView[]>();
      for (const row of rows) {
        const f = findingViewOfRow(row);
        const list = byId.get(f.requirementId!);
        if (list) list.push(f);
        else byId.set(f.requirementId!, [f]);
      }
      return ids.map((id) => byId.get(id) ?? []);
    }),
  };
}

export type Loaders = ReturnType<typeof createLoaders>;
