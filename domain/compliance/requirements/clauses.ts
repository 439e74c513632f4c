import { mapToClauses } from '../validation/mapping';

/** The clauses of its own framework a requirement's text maps to: the validation engine's compliance mapping. */
export function clausesOf(r: { framework: string; title: string; description?: string | null; category?: string | null; acceptanceCriteria?: string[] | null }): string[] {
  return mapToClauses(r.framework, [r.title, r.description, ...(r.acceptanceCriteria ?? []), r.category]);
}
