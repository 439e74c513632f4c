import { mapToClauses } from '../validation/mapping';

/** The clauses of its own framework a requirement's text maps to: the validation engine's compliance mapping. */
export function clausesOf(r: {
  framework?: string | null;
  title: string;
  description?: string | null;
  category?: string | null;
  acceptanceCriteria?: string[] | null;
}): string[] {
  if (!r.framework) return []; // unassigned: no framework's clauses to map to
  return mapToClauses(r.framework, [r.title, r.description, ...(r.acceptanceCriteria ?? []), r.category]);
}
