import {
  getNamedType,
  getNullableType,
  getOperationAST,
  isListType,
  isObjectType,
  isInterfaceType,
  Kind,
  valueFromAST,
  visit,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLSchema,
  type SelectionSetNode,
  type ValueNode,
} from 'graphql';
import { DomainError } from '../../../domain/errors';
import { COST_WEIGHTS, type CostWeights } from './cost-weights';

/**
 * What an operation may cost once list sizes are known. graphql-armor's cost limit (validation, no
 * variables) counts every field once, so `requirements(limit: 500) { data { … findings { … } } }` cost
 * the same as `limit: 1`. Here, with the variables at hand, a field's `limit` multiplies the cost of
 * everything under it; a list without a `limit` of its own counts as DEFAULT_LIST_SIZE items, except
 * directly inside a paged field (its `data`), which the page's `limit` already counts. A field's own
 * weight and assumed list size can differ from these defaults (parts/cost-weights.ts: measured CPU).
 */
export const LIST_COST = {
  /** Items assumed for a `limit` not given (the services' default page). */
  defaultLimit: 50,
  /** Items assumed for a list field without a `limit` argument (nested findings, criteria…). */
  defaultListSize: 10,
};

export function operationCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
  variables: Record<string, unknown> = {},
  weights: CostWeights = COST_WEIGHTS,
): number {
  const operation = getOperationAST(document, operationName ?? undefined);
  if (!operation) return 0;
  const root =
    operation.operation === 'query' ? schema.getQueryType() : operation.operation === 'mutation' ? schema.getMutationType() : schema.getSubscriptionType();
  if (!root) return 0;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);

  const limitOf = (field: GraphQLField<unknown, unknown>, args: readonly { name: { value: string }; value: ValueNode }[]): number | undefined => {
    const def = field.args.find((a) => a.name === 'limit');
    if (!def) return undefined;
    const given = args.find((a) => a.name.value === 'limit');
    const value = given ? valueFromAST(given.value, def.type, variables) : def.defaultValue;
    return typeof value === 'number' && Number.isFinite(value) ? Math.max(0, value) : LIST_COST.defaultLimit;
  };

  const costOf = (type: GraphQLNamedType, set: SelectionSetNode, paged: boolean, depth: number, seen: Set<string>): number => {
    if (depth > 64) return 0; // depth is limited elsewhere; this only guards the recursion
    let total = 0;
    for (const sel of set.selections) {
      if (sel.kind === Kind.INLINE_FRAGMENT) {
        const on = sel.typeCondition ? (schema.getType(sel.typeCondition.name.value) ?? type) : type;
        total += costOf(on, sel.selectionSet, paged, depth + 1, seen);
        continue;
      }
      if (sel.kind === Kind.FRAGMENT_SPREAD) {
        const f = fragments.get(sel.name.value);
        if (!f || seen.has(f.name.value)) continue;
        const on = schema.getType(f.typeCondition.name.value) ?? type;
        total += costOf(on, f.selectionSet, paged, depth + 1, new Set([...seen, f.name.value]));
        continue;
      }
      if (sel.name.value.startsWith('__')) continue;
      const field = isObjectType(type) || isInterfaceType(type) ? type.getFields()[sel.name.value] : undefined;
      if (!field) {
        total += 1;
        continue;
      }
      const own = weights.fields[`${type.name}.${field.name}`];
      const limit = limitOf(field, sel.arguments ?? []);
      const isList = isListType(getNullableType(field.type));
      let items = 1;
      let childPaged = false;
      if (limit !== undefined) {
        items = limit;
        childPaged = !isList; // a page object: its `data` list is what `limit` counts
      } else if (isList) {
        items = paged ? 1 : (own?.listSize ?? LIST_COST.defaultListSize);
      }
      const below = sel.selectionSet ? costOf(getNamedType(field.type), sel.selectionSet, childPaged, depth + 1, seen) : 0;
      total += (own?.weight ?? weights.types[type.name] ?? 1) + items * below;
    }
    return total;
  };
  // Weights below one unit make fractions; an operation costs whole units.
  return Math.ceil(costOf(root, operation.selectionSet, false, 0, new Set()) - 1e-9);
}

/**
 * Costs already worked out, per schema and document, by operation and the values of the variables a
 * `limit` argument reads: nothing else can change a cost. Walking the document for every request was
 * ~25 µs of a computed GraphQL list; a request with new variables elsewhere (a filter, an id) finds it
 * here. At most COSTS_PER_DOCUMENT per document.
 */
const costs = new WeakMap<GraphQLSchema, WeakMap<DocumentNode, { limitVariables: string[]; byKey: Map<string, number> }>>();
const COSTS_PER_DOCUMENT = 256;
const COST_KEY_MAX = 256;

/** The names of the variables used anywhere inside a `limit` argument's value. */
function variablesOfLimits(document: DocumentNode): string[] {
  const names = new Set<string>();
  let insideLimit = 0;
  visit(document, {
    Argument: {
      enter: (node) => void (node.name.value === 'limit' && insideLimit++),
      leave: (node) => void (node.name.value === 'limit' && insideLimit--),
    },
    Variable: (node) => void (insideLimit > 0 && names.add(node.name.value)),
  });
  return [...names];
}

function knownCost(schema: GraphQLSchema, document: DocumentNode, operationName: string | null | undefined, variables: Record<string, unknown>): number {
  let bySchema = costs.get(schema);
  if (!bySchema) costs.set(schema, (bySchema = new WeakMap()));
  let known = bySchema.get(document);
  if (!known) bySchema.set(document, (known = { limitVariables: variablesOfLimits(document), byKey: new Map() }));
  const key = `${operationName ?? ''}\u0000${JSON.stringify(known.limitVariables.map((name) => variables[name] ?? null))}`;
  // Whatever a client sends for those variables, only short keys are kept (a page size is a few digits).
  if (key.length > COST_KEY_MAX) return operationCost(schema, document, operationName, variables);
  let cost = known.byKey.get(key);
  if (cost === undefined) {
    cost = operationCost(schema, document, operationName, variables);
    if (known.byKey.size >= COSTS_PER_DOCUMENT) known.byKey.clear();
    known.byKey.set(key, cost);
  }
  return cost;
}

/** Throws 400 VALIDATION_ERROR when the operation's list-aware cost is over `maxCost`. */
export function checkOperationCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
  variables: Record<string, unknown> | undefined,
  maxCost: number,
) {
  const cost = knownCost(schema, document, operationName, variables ?? {});
  if (cost > maxCost) {
    throw new DomainError(
      'VALIDATION_ERROR',
      `Query cost ${cost} exceeds the maximum of ${maxCost}: each list's \`limit\` multiplies the cost of the fields under it; ask for smaller pages or fewer fields`,
      {
        details: { cost, maxCost },
      },
    );
  }
}

/** Throws 413 PAYLOAD_TOO_LARGE when a result's JSON is over `maxBytes` (a backstop to the cost limit). */
export function resultTooLarge(bytes: number, maxBytes: number) {
  return new DomainError('PAYLOAD_TOO_LARGE', `The result is ${bytes} bytes, over the ${maxBytes}-byte limit of one response; ask for fewer items or fields`, {
    details: { bytes, maxBytes },
  });
}
