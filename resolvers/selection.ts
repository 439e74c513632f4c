import { Kind, type FieldNode, type GraphQLResolveInfo, type SelectionSetNode } from 'graphql';

/**
 * The names of the fields a query selects under the resolved field, at `path` below it (`['data']`
 * for a page's items), fragments followed. Conditional fields (`@include`, `@skip`) count as selected:
 * reading a column nobody then shows costs less than a wrong answer. What resolvers hand the domain
 * as a projection, so a read reads only the columns and relations the selection needs.
 */
export function selectedFields(info: GraphQLResolveInfo, path: readonly string[] = []): Set<string> {
  let sets: SelectionSetNode[] = info.fieldNodes.flatMap((n) => (n.selectionSet ? [n.selectionSet] : []));
  for (const name of path) sets = fieldsIn(info, sets).flatMap((f) => (f.name === name && f.selectionSet ? [f.selectionSet] : []));
  return new Set(fieldsIn(info, sets).map((f) => f.name));
}

function fieldsIn(info: GraphQLResolveInfo, sets: SelectionSetNode[]): { name: string; selectionSet?: SelectionSetNode }[] {
  const out: { name: string; selectionSet?: SelectionSetNode }[] = [];
  const walk = (set: SelectionSetNode, seen: Set<string>) => {
    for (const s of set.selections) {
      if (s.kind === Kind.FIELD) out.push({ name: s.name.value, selectionSet: s.selectionSet });
      else if (s.kind === Kind.INLINE_FRAGMENT) walk(s.selectionSet, seen);
      else if (!seen.has(s.name.value)) {
        seen.add(s.name.value);
        const fragment = info.fragments[s.name.value];
        if (fragment) walk(fragment.selectionSet, seen);
      }
    }
  };
  for (const set of sets) walk(set, new Set());
  return out;
}

/**
 * `compute` of a field's selection, once per field of a document rather than once per row: a field
 * resolver of a list's items (a page's findings) is called for every row with the same field nodes
 * (and the same document's fragments), and walking the selection 50 times a page was measurable.
 */
export function perSelection<T>(compute: (info: GraphQLResolveInfo) => T): (info: GraphQLResolveInfo) => T {
  const known = new WeakMap<readonly FieldNode[], T>();
  return (info) => {
    let value = known.get(info.fieldNodes);
    if (value === undefined) known.set(info.fieldNodes, (value = compute(info)));
    return value;
  };
}
