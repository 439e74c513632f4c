import { getOperationAST, GraphQLError, Kind, type DocumentNode, type ExecutionResult } from 'graphql';
import type { Principal } from '../../../domain/auth/principal';
import type { ReadModel } from '../../../domain/compliance/read-model/read-model';
import { toClientError } from '../../../transport/client-error';
import type { Operation, Part } from '../pipeline';
import { forgetJsonAtTurnEnd, jsonSize } from './limits';

/** Answers of read-model queries kept for as long as the read model's version does not change. */
export interface ResponseCacheOptions {
  /** The read model's version and kept answers, shared with REST and tRPC. */
  readModel: ReadModel;
  /** Root query fields that read only the read model. */
  roots: ReadonlySet<string>;
}

/**
 * Answers of read-model queries (requirements and their findings), kept per query text, operation,
 * variables and caller, tagged with the read model's version read before executing; an answer is
 * reused only while that version is still current, so a committed change on any instance is never
 * hidden. Answers with errors are not kept. Listed before the result-size cap, so a kept answer was
 * measured once, when it was made.
 */
export function responseCache(opts: ResponseCacheOptions): Part {
  const answers = opts.readModel.keeps ? opts.readModel : null;
  const cacheable = new WeakMap<DocumentNode, Map<string, boolean>>();
  const isCacheable = (document: DocumentNode, operationName: string | null) => {
    let byOperation = cacheable.get(document);
    if (!byOperation) cacheable.set(document, (byOperation = new Map()));
    let yes = byOperation.get(operationName ?? '');
    if (yes === undefined) byOperation.set(operationName ?? '', (yes = readsOnly(document, operationName, opts.roots)));
    return yes;
  };
  /** The key an operation's answer is kept under; undefined when it is not kept. */
  const keyOf = (op: Operation): string | undefined => {
    if (!isCacheable(op.document, op.operationName)) return undefined;
    const vars = variablesKey(op.variables);
    if (vars === undefined) return undefined;
    return `graphql\u0000${op.documentKey}\u0000${op.operationName ?? ''}\u0000${vars}\u0000${callerKey(op.context.domain.principal)}`;
  };
  return {
    name: 'response-cache',
    /**
     * The answer `execute` would reuse, read like it (the version read after the call began, so a
     * change committed before it is never hidden), or undefined; computes nothing. The caller's
     * permissions are part of the key: a kept answer was computed, checks and all, for this caller.
     */
    async kept(op) {
      const key = answers ? keyOf(op) : undefined;
      if (key === undefined) return undefined;
      return answers!.kept<ExecutionResult>(key);
    },
    async execute(op, next) {
      const key = answers ? keyOf(op) : undefined;
      if (!answers || key === undefined) return next(op);
      let version: string;
      try {
        version = await answers.version();
      } catch (err) {
        // The database is unavailable (or failing): the same error answer as from a resolver, not a 500.
        return { data: null, errors: [new GraphQLError(toClientError(err).message, { originalError: err as Error })] };
      }
      const hit = answers.get<ExecutionResult>(key, version);
      if (hit) return hit;
      const result = await next(op);
      if (!result.errors) {
        answers.set(key, version, result, jsonSize(result));
        forgetJsonAtTurnEnd(result);
      }
      return result;
    },
  };
}

/** Whether the operation is a query whose root fields are all in `roots` (or `__typename`), plainly selected. */
function readsOnly(document: DocumentNode, operationName: string | null, roots: ReadonlySet<string>): boolean {
  const operation = getOperationAST(document, operationName);
  if (!operation || operation.operation !== 'query' || operation.directives?.length) return false;
  const fields = operation.selectionSet.selections;
  return (
    fields.every((s) => s.kind === Kind.FIELD && !s.directives?.length && (s.name.value === '__typename' || roots.has(s.name.value))) &&
    fields.some((s) => s.kind === Kind.FIELD && roots.has(s.name.value))
  );
}

/** Variables as part of a cache key; undefined (not cached) when they are large or too deep to serialise. */
function variablesKey(variables: Record<string, unknown>): string | undefined {
  try {
    const text = JSON.stringify(variables);
    return text.length <= 4096 ? text : undefined;
  } catch {
    return undefined;
  }
}

/** Who the answer was computed for: the same key and permissions get the same answer. */
const callerKeys = new WeakMap<Principal, string>();
function callerKey(principal: Principal | null): string {
  if (!principal) return 'anonymous';
  let key = callerKeys.get(principal);
  if (!key) callerKeys.set(principal, (key = JSON.stringify([principal.keyId, principal.isAdmin, [...principal.permissions].sort()])));
  return key;
}
