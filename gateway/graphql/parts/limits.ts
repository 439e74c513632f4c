import { ApolloArmor } from '@escape.tech/graphql-armor';
import { GraphQLError, type ExecutionResult, type GraphQLSchema, type ValidationRule } from 'graphql';
import type { Part } from '../pipeline';
import { checkOperationCost, resultTooLarge } from './cost';

/** Limits on what one GraphQL document may ask for; each answers an error naming the limit. */
export const GRAPHQL_LIMITS = { maxDepth: 12, maxAliases: 20, maxCost: 20000, maxTokens: 5000, maxDirectives: 20 };

/** Largest JSON answer of one GraphQL operation, unless configured (GRAPHQL_MAX_RESULT_BYTES). */
export const DEFAULT_MAX_RESULT_BYTES = 5 * 1024 * 1024;

/**
 * What the document alone may ask for: graphql-js's token limit while parsing, graphql-armor's depth,
 * alias, (list-blind) cost and directive rules while validating.
 */
export function documentLimits(): Part {
  const armor = new ApolloArmor({
    maxDepth: { n: GRAPHQL_LIMITS.maxDepth },
    maxAliases: { n: GRAPHQL_LIMITS.maxAliases },
    costLimit: { maxCost: GRAPHQL_LIMITS.maxCost },
    // armor's token check runs in Apollo's parsingDidStart, outside Apollo's parse try/catch, so a
    // syntax error there became a 500; graphql-js's own parse limit answers a 400 instead.
    maxTokens: { enabled: false },
    maxDirectives: { n: GRAPHQL_LIMITS.maxDirectives },
    // Hiding "Did you mean" is error formatting (parts/errors.ts), the same on both transports.
    blockFieldSuggestion: { enabled: false },
  });
  return {
    name: 'document-limits',
    parseOptions: { maxTokens: GRAPHQL_LIMITS.maxTokens },
    validationRules: armor.protect().validationRules as ValidationRule[],
  };
}

/** The list-aware cost (parts/cost.ts), once the variables give the page sizes: 400 when over. */
export function listCost(schema: GraphQLSchema, maxCost = GRAPHQL_LIMITS.maxCost): Part {
  return {
    name: 'list-cost',
    admit(op) {
      checkOperationCost(schema, op.document, op.operationName, op.variables, maxCost);
    },
  };
}

/** JSON lengths already measured, so a kept answer is never measured again (parts/response-cache.ts). */
const sizes = new WeakMap<ExecutionResult, number>();

/**
 * The JSON text of a result just measured, by its `data` object, for the HTTP answer to reuse
 * (`stringifyResult`): a computed list was turned into JSON twice, once to measure it and once by
 * Apollo. Only results of `data` alone (no errors, no extensions, no other key), whose text is the
 * one Apollo would write. Taken once; a kept answer's text is dropped at the end of the loop turn
 * (`forgetJsonAtTurnEnd`), after its own HTTP answer took it, so the response cache does not hold
 * every answer twice.
 */
const texts = new WeakMap<object, string>();

/** The length of a result's JSON (what goes on the wire, near enough: UTF-16 units, not bytes). */
export function jsonSize(result: ExecutionResult): number {
  let size = sizes.get(result);
  if (size === undefined) {
    const text = JSON.stringify(result);
    sizes.set(result, (size = text.length));
    if (dataAlone(result)) texts.set(result.data as object, text);
  }
  return size;
}

function dataAlone(result: { data?: unknown; errors?: unknown; extensions?: unknown }): boolean {
  if (typeof result.data !== 'object' || result.data === null || result.errors !== undefined || result.extensions !== undefined) return false;
  for (const key in result) if (key !== 'data' && key !== 'errors' && key !== 'extensions') return false;
  return true;
}

/** A kept answer does not keep its text (it is written anew for each hit, as before). */
export function forgetJson(result: ExecutionResult) {
  if (result.data) texts.delete(result.data);
}

let forgetAtTurnEnd: ExecutionResult[] = [];
/**
 * `forgetJson` once this loop turn is over. The answer that made a kept result is written in the same
 * turn (Apollo stringifies it in the promise chain that executed it), so it takes the measured text
 * instead of writing the JSON a second time (a computed list of 50: ~35 µs, and its garbage); an
 * answer written later, or over another transport, writes it anew: the same characters.
 */
export function forgetJsonAtTurnEnd(result: ExecutionResult) {
  if (forgetAtTurnEnd.length === 0)
    setImmediate(() => {
      const batch = forgetAtTurnEnd;
      forgetAtTurnEnd = [];
      for (const r of batch) forgetJson(r);
    });
  forgetAtTurnEnd.push(result);
}

/**
 * Apollo's `stringifyResult`: its own `JSON.stringify(value) + '\n'`, the text measured by the size
 * cap when there is one for this `data` (the same characters: `{"data":…}`).
 */
export function stringifyResult(value: { data?: unknown; errors?: unknown; extensions?: unknown }): string {
  if (dataAlone(value)) {
    const text = texts.get(value.data as object);
    if (text !== undefined) {
      texts.delete(value.data as object);
      return text + '\n';
    }
  }
  return JSON.stringify(value) + '\n';
}

/** A backstop to the cost limit: an answer whose JSON is over `maxBytes` becomes a 413 PAYLOAD_TOO_LARGE error. */
export function resultSizeCap(maxBytes = DEFAULT_MAX_RESULT_BYTES): Part {
  return {
    name: 'result-size-cap',
    async execute(op, next) {
      const result = await next(op);
      const size = jsonSize(result);
      if (size <= maxBytes) return result;
      return { data: null, errors: [new GraphQLError('The result is too large', { originalError: resultTooLarge(size, maxBytes) })] };
    },
  };
}
