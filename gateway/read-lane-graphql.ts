import type { IncomingMessage, ServerResponse } from 'node:http';
import { BREAK, getOperationAST, OperationTypeNode, visit, type DocumentNode, type ExecutionResult } from 'graphql';
import { handOnWithBody, readSmallBody, takesSmallJsonBody, type LaneDeps } from '../rest-adapter/fast-lane';
import type { Pipeline } from './graphql';
import { chargeUnlessRefused, type OperationCharging } from './graphql/parts/budgets';
import type { Operation } from './graphql/pipeline';
import { stringifyResult } from './graphql/parts/limits';
import type { GqlContext } from '../resolvers/context';
import { bearerFrom } from '../transport/credentials';

/**
 * The read lane's GraphQL branch: a `POST /graphql` query is answered in front of express and
 * Apollo, with Apollo's status, bytes and headers and metrics under Apollo's label. A result the
 * pipeline keeps for this caller at the read model's current version (`Pipeline.kept`) is sent
 * charged as Apollo's admission charges it; anything else is computed: admitted as Apollo's
 * admission admits it (`Pipeline.tryAdmit`: input checks, budgets, list cost), executed by the
 * pipeline Apollo executes with (`Pipeline.execute`), sent when it has no errors. Anything else — a
 * mutation or subscription, a body that is not one plain operation, a document that does not
 * validate, no key or a refused one, an operation over its budget or refused by admission, a result
 * with errors, an error of any kind — goes to express with the body already read
 * (`handOnWithBody`), and nothing stays counted: Apollo computes it again (a query is a read) and
 * answers in its own words, counting it once.
 *
 * Only requests Apollo answers in one way are taken: a small JSON body, no `Origin` (CORS answers
 * differ), no content encoding, an `Accept` that gets `application/json` (Apollo negotiates
 * `application/graphql-response+json` otherwise), none of Apollo's CSRF-preflight headers, a key,
 * no introspection.
 */
export interface GraphqlLaneDeps {
  pipeline: Pipeline;
  charging: OperationCharging;
  /** The /metrics label Apollo's path gives an operation, by the name Apollo resolves (the document's). */
  routeLabel(operationName: string | null): string;
}

/** `staticHeaders` here are those of a POST without `Origin`. */
export type GraphqlBranchDeps = LaneDeps;

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** `Accept` values for which Apollo answers `application/json; charset=utf-8`. */
const JSON_ACCEPTS = new Set([undefined, '', '*/*', 'application/json']);
/** The keys of a plain operation's body. */
const BODY_KEYS = new Set(['query', 'variables', 'operationName']);

/** The operation a request runs, as far as the lane needs it. */
interface Shape {
  name: string | null;
  query: boolean;
}

/** Whether a document selects `__schema` or `__type` anywhere (Apollo's NoIntrospection rule). */
function introspects(document: DocumentNode): boolean {
  let found = false;
  visit(document, {
    Field(node) {
      if (node.name.value === '__schema' || node.name.value === '__type') {
        found = true;
        return BREAK;
      }
      return undefined;
    },
  });
  return found;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function createGraphqlBranch(base: GraphqlBranchDeps) {
  let deps: GraphqlLaneDeps | undefined;
  // The security and CORS headers, then Apollo's content type (its `res.send` adds the length).
  const head = [...Object.entries(base.staticHeaders).flat(), 'content-type', 'application/json; charset=utf-8'];

  /** Apollo's bytes for a result: `JSON.stringify({ errors, data, extensions }) + '\n'`, made once per kept result. */
  const made = new WeakMap<ExecutionResult, Buffer>();
  const keeps = base.services.readModel.keeps;
  const bytesOf = (result: ExecutionResult) => {
    let buf = made.get(result);
    if (!buf) {
      buf = Buffer.from(`${JSON.stringify({ errors: result.errors, data: result.data, extensions: result.extensions })}\n`, 'utf8');
      made.set(result, buf);
    }
    return buf;
  };
  /**
   * The operation Apollo resolves (`getOperationAST` with the given name), per document and name:
   * its name (Apollo's `operationName`, null when unnamed) and whether the lane may run it — a query
   * (never a mutation or subscription) that asks for no introspection (`__schema`, `__type`: Apollo
   * refuses those in production, a validation rule of its own).
   */
  const shapes = new WeakMap<DocumentNode, Map<string, Shape>>();
  const shapeOf = (document: DocumentNode, operationName: string | null): Shape => {
    let byName = shapes.get(document);
    if (!byName) shapes.set(document, (byName = new Map()));
    let shape = byName.get(operationName ?? '');
    if (shape === undefined) {
      const operation = getOperationAST(document, operationName);
      shape = { name: operation?.name?.value || null, query: operation?.operation === OperationTypeNode.QUERY && !introspects(document) };
      byName.set(operationName ?? '', shape);
    }
    return shape;
  };

  const takes = (req: IncomingMessage) => {
    const h = req.headers;
    return (
      req.url === '/graphql' &&
      h.authorization !== undefined &&
      JSON_ACCEPTS.has(h.accept) &&
      h['apollo-require-preflight'] === undefined &&
      h['x-apollo-operation-name'] === undefined &&
      h['if-none-match'] === undefined &&
      h['if-modified-since'] === undefined &&
      takesSmallJsonBody(req)
    );
  };

  /** The operation the body asks for, if it is one plain, valid operation; else undefined. */
  const operationOf = (text: string): Omit<Operation, 'context'> | undefined => {
    const body: unknown = JSON.parse(text);
    if (!isRecord(body)) return undefined;
    for (const name in body) if (!BODY_KEYS.has(name)) return undefined;
    const { query, variables, operationName } = body;
    if (typeof query !== 'string' || query === '') return undefined;
    if (variables !== undefined && variables !== null && !isRecord(variables)) return undefined;
    if (operationName !== undefined && operationName !== null && (typeof operationName !== 'string' || operationName === '')) return undefined;
    const prepared = deps!.pipeline.prepare(query);
    if ('errors' in prepared) return undefined;
    return { document: prepared.document, documentKey: prepared.documentKey, operationName: (operationName as string | null | undefined) ?? null, variables: (variables as Record<string, unknown> | null | undefined) ?? {} };
  };

  async function answer(req: IncomingMessage, res: ServerResponse, text: string, startedNs: bigint): Promise<boolean> {
    const lane = deps!;
    const asked = operationOf(text);
    if (!asked) return false;
    // Only a query, found as Apollo finds it (a mutation or subscription is never run here).
    const shape = shapeOf(asked.document, asked.operationName);
    if (!shape.query) return false;
    const secret = bearerFrom(req.headers.authorization);
    const principal = secret === undefined ? null : await base.authenticate(secret);
    if (!principal) return false;
    const requestId = base.requestIdOf(req);
    let route = '';
    // What Apollo's context function makes (gateway/start/transports.ts): the services, the request's
    // own domain context (a fresh EntityManager fork and DataLoaders, made on first use), and
    // `onOperation`, told the operation's name as Apollo's admission tells it (the /metrics label).
    const context: GqlContext = {
      services: base.services,
      domain: base.contexts.of({ requestId, principal, ip: base.clientIpOf(req) }),
      onOperation: (name) => {
        route = lane.routeLabel(name);
      },
    };
    const op: Operation = { ...asked, context };
    context.onOperation!(shape.name);
    const kept = await lane.pipeline.kept(op);
    let body: Buffer | undefined;
    if (kept !== undefined) {
      if (kept.errors !== undefined) return false;
      // Input checks and list cost passed when the kept answer was made (same document, operation
      // and variables): only the budgets are charged.
      if (!(await chargeUnlessRefused(lane.charging, op))) return false;
      body = bytesOf(kept);
    } else {
      // Computed, admitted first as Apollo's admission admits it: over a budget or refused, nothing
      // stays counted and Apollo answers (counting it once).
      const takeBack = await lane.pipeline.tryAdmit(op);
      if (!takeBack) return false;
      try {
        const result = await lane.pipeline.execute(op);
        // Any error (a field's, a variable's, the size cap's) leaves `body` unset: Apollo computes
        // again and answers it in its own words (formatting, logging, status, Retry-After). A query
        // is a read: idempotent.
        if (result.errors === undefined) {
          // Apollo's `stringifyResult` of its `{errors, data, extensions}`: the size cap's text when it made one.
          body = Buffer.from(stringifyResult({ errors: undefined, data: result.data, extensions: result.extensions }), 'utf8');
          // A result the response cache now keeps is answered from these bytes on its next hit.
          if (keeps) made.set(result, body);
        }
      } catch {
        body = undefined; // thrown: Apollo's too
      }
      if (body === undefined) {
        await takeBack();
        return false;
      }
    }
    if (res.headersSent || res.destroyed) return true;
    res.writeHead(200, ['X-Request-Id', requestId, ...head, 'Content-Length', String(body.length)]);
    res.end(body);
    base.answered(req, route, 200, requestId, startedNs);
    return true;
  }

  return {
    /** Given once the GraphQL server is mounted; until then every request goes to express. */
    use(lane: GraphqlLaneDeps) {
      deps = lane;
    },
    /** Takes the request (true) or leaves it to the caller (false, nothing read). */
    take(req: IncomingMessage, res: ServerResponse, fallback: Handler): boolean {
      if (!deps || req.method !== 'POST' || !takes(req)) return false;
      const startedNs = process.hrtime.bigint();
      readSmallBody(req, (text) => {
        // A miss, invalid JSON, an error anywhere: express (and Apollo behind it) answers, with the body read here.
        const handOn = () => handOnWithBody(req, res, text, fallback);
        answer(req, res, text, startedNs).then((done) => done || handOn(), handOn);
      });
      return true;
    },
  };
}
