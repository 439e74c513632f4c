import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import { GraphQLError, type DocumentNode, type ExecutionResult, type GraphQLSchema } from 'graphql';
import type { Part } from '../pipeline';

/**
 * Execution of a query graphql-jit compiled once per document and operation, instead of graphql-js
 * walking the document for every row. Both transports keep one DocumentNode per query text (Apollo's
 * document store, `Pipeline.prepare`), so compiled queries live as long as their document does.
 * What graphql-jit cannot compile (an unknown operation name, say), or a request error it reports
 * (variables that do not coerce), goes on to graphql-js, which answers with its own error.
 */
export function compiledExecution(schema: GraphQLSchema): Part {
  const compiled = new WeakMap<DocumentNode, Map<string, CompiledQuery | null>>();
  const compile = (document: DocumentNode, operationName: string | null): CompiledQuery | null => {
    let byOperation = compiled.get(document);
    if (!byOperation) compiled.set(document, (byOperation = new Map()));
    const key = operationName ?? '';
    let query = byOperation.get(key);
    if (query === undefined) {
      let made: CompiledQuery | ExecutionResult | null;
      try {
        made = compileQuery(schema, document, operationName ?? undefined);
      } catch {
        made = null;
      }
      query = made && isCompiledQuery(made) ? made : null;
      byOperation.set(key, query);
    }
    return query;
  };
  return {
    name: 'compiled-execution',
    async execute(op, next) {
      const query = compile(op.document, op.operationName);
      if (!query) return next(op);
      const result = await query.query(undefined, op.context, op.variables);
      if (!result.errors) return result;
      // Field errors come with data; request errors do not, and graphql-js reports those in the form
      // Apollo recognises as BAD_USER_INPUT.
      if (result.data !== undefined) return { ...result, errors: result.errors.map(asGraphqlJsError) };
      return next(op);
    },
  };
}

/**
 * graphql-jit's errors leave `extensions` undefined, where graphql-js always sets an object (Apollo's
 * error formatting reads `extensions.code`); the same error, as graphql-js builds it.
 */
function asGraphqlJsError(error: GraphQLError): GraphQLError {
  const copy = new GraphQLError(error.message, { path: error.path, originalError: error.originalError, extensions: error.extensions ?? undefined });
  if (error.locations) (copy as { locations?: unknown }).locations = error.locations;
  return copy;
}
