import DataLoader from 'dataloader';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AuditFinding } from './compliance/findings/audit-finding.entity';

/**
 * Batches the lookups nested reads would otherwise make one by one: a page of 500
 * requirements with their findings costs one findings query, not 500.
 */
export function createLoaders(em: EntityManager) {
  return {
    findingsByRequirement: new DataLoader<string, AuditFinding[]>(async (ids) => {
      const rows = await em.find(
        AuditFinding,
        { requirementId: { $in: ids as string[] } },
        { orderBy: { discoveredAt: 'desc', id: 'desc' } },
      );
      const byId = new Map<string, AuditFinding[]>();
      for (const f of rows) {
        const list = byId.get(f.requirementId!) ?? [];
        list.push(f);
        byId.set(f.requirementId!, list);
      }
      return ids.map((id) => byId.get(id) ?? []);
    }),
  };
}

export type Loaders = ReturnType<typeof createLoaders>;
