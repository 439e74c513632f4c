import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * The current version of the compliance read model (requirements and audit findings). It changes
 * whenever a committed transaction changed either table, on any instance; an answer computed from
 * them stays valid while the version read *before* computing it is still the current one.
 */
export async function readModelVersion(rootEm: EntityManager): Promise<string> {
  const rows: { version: string | number }[] = await rootEm.getConnection().execute('select "version" from "read_model_version" where "id" = 1');
  return String(rows[0]?.version ?? '');
}

/** Root query fields whose answers depend only on the read model, the arguments and the caller. */
export const READ_MODEL_QUERIES = new Set(['requirements', 'requirement']);
