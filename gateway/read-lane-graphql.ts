import type { IncomingMessage, ServerResponse } from 'node:http';
import { getOperationAST, type DocumentNode, type ExecutionResult } from 'graphql';
import { handOnWithBody, readSmallBody, takesSmallJsonBody, type LaneDeps } from '../rest-adapter/fast-lane';
import type { Pipeline } from './graphql';
import { chargeUnlessRefused, type OperationCharging } from './graphql/parts/budgets';
import type { Operation } from './graphql/pipeline';
import { bearerFrom } from './kit/credentials';

/**
 * The read lane's GraphQL branch: a `POST /graphql` whose result the pipeline keeps for this caller
 * at the read model's current version (`Pipeline.kept`: the response cache's answer, computing
 * nothing) is answered in front of express and Apollo, with Apollo's status, bytes and headers, the
 * operation charged as Apollo's admission charges it, and metrics under Apollo's label. Anything
 * else — a miss, a body that is not one plain operation, a document that does not validate, no key
 * or a refused one, an operation over its budget, an error of any kind — goes to express with the
 * body already read (`handOnWithBody`), and nothing stays counted.
 *
 * Only requests Apollo answers in one way are taken: a small JSON body, no `Origin` (CORS answers
 * differ), no content encoding, an `Accept` that gets `application/json` (Apollo negotiates
 * `application/graphql-response+json` otherwise), none of Apollo's CSRF-preflight headers, a key.
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

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function createGraphqlBranch(base: GraphqlBranchDeps) {
  let deps: GraphqlLaneDeps | undefined;
  // The security and CORS headers, then Apollo's content type (its `res.send` adds the length).
  const head = [...Object.entries(base.staticHeaders).flat(), 'content-type', 'application/json; charset=utf-8'];

  /** Apollo's bytes for a result: `JSON.stringify({ errors, data, extensions }) + '\n'`, made once per kept result. */
  const made = new WeakMap<ExecutionResult, Buffer>();
  const bytesOf = (result: ExecutionResult) => {
    let buf = made.get(result);
    if (!buf) {
      buf = Buffer.from(`${JSON.stringify({ errors: result.errors, data: result.data, extensions: result.extensions })}\n`, 'utf8');
      made.set(result, buf);
    }
    return buf;
  };
  /** The name Apollo resolves for the operation (its `operationName`: the document's, or null). */
  const names = new WeakMap<DocumentNode, Map<string, string | null>>();
  const resolvedName = (document: DocumentNode, operationName: string | null) => {
    let byName = names.get(document);
    if (!byName) names.set(document, (byName = new Map()));
    let name = byName.get(operationName ?? '');
    if (name === undefined) byName.set(operationName ?? '', (name = getOperationAST(document, operationName)?.name?.value || null));
    return name;
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
    const secret = bearerFrom(req.headers.authorization);
    const principal = secret === undefined ? null : await base.authenticate(secret);
    if (!principal) return false;
    const requestId = base.requestIdOf(req);
    const op: Operation = { ...asked, context: { services: base.services, domain: base.contexts.of({ requestId, principal, ip: base.clientIpOf(req) }) } };
    const kept = await lane.pipeline.kept(op);
    if (kept === undefined || kept.errors !== undefined) return false;
    if (!(await chargeUnlessRefused(lane.charging, op))) return false;
    const body = bytesOf(kept);
    if (res.headersSent || res.destroyed) return true;
    res.writeHead(200, ['X-Request-Id', requestId, ...head, 'Content-Length', String(body.length)]);
    res.end(body);
    base.answered(req, lane.routeLabel(resolvedName(op.document, op.operationName)), 200, requestId, startedNs);
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
