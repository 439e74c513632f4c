import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import querystring from 'node:querystring';
import { BREAK, getOperationAST, OperationTypeNode, visit, type DocumentNode, type ExecutionResult } from 'graphql';
import type { Principal } from '../../domain/auth/principal';
import type { DomainContext } from '../../domain/context';
import type { Services } from '../../domain/services';
import { rejectUnstorableStrings } from '../../domain/validation';
import { audioHeaderPairs } from '../../rest-adapter/routes/tts-answers';
import { speechHeaderPairs } from '../../rest-adapter/routes/openai.routes';
import { speechGenerationRequest } from '../../domain/tts/speech-models';
import type { GqlContext } from '../../resolvers/context';
import type { OperationBudgets } from '../../transport/budgets';
import type { RequestContexts } from '../../transport/request-context';
import { plainTrpcInput, TRPC_RESULT_HEADERS, trpcResultText, wantsPlainJson } from '../../transport/trpc-http';
import { chargeUnlessRefused, type OperationCharging } from '../graphql/parts/budgets';
import { stringifyResult } from '../graphql/parts/limits';
import type { Operation, Pipeline } from '../graphql/pipeline';
import { parsedBody, type ReadBody } from './body';
import type { RouteMatch } from './route-match';
import type { RouteSpec } from '../../rest-adapter/route';
import type { AudioFile } from '../../domain/tts/audio-retrieval';

/**
 * The seam: the few answers that must run at the limit, sent by the front itself from what the
 * domain already holds in memory, with no framework in between. Only hits are answered here:
 *
 * - a hot audio file (`GET /api/v1/audio/{hash}`, a plain GET: no range, no condition);
 * - a cache-hit generation (`POST /api/v1/generate` whose audio is in the hot tier), and a cache-hit
 *   OpenAI-compatible speech request (`POST /v1/audio/speech`: that audio's bytes);
 * - read-model hits: the requirement list and one requirement on REST and tRPC, and a GraphQL query
 *   whose answer the response cache keeps.
 *
 * Anything else (a miss, an error, a request in any way unusual) is handed to the framework that
 * owns the path, unchanged: the front has already authenticated it, charged REST's limiter and read
 * its body, and none of that is done again. tRPC and GraphQL charge per call or root field inside
 * their frameworks, so for them the seam charges only the hit it answers, with their counters.
 *
 * The seam writes the bytes those frameworks write for the same answer: JSON as express's `res.json`
 * and Apollo's `stringifyResult` write it, tRPC's documented HTTP RPC result envelope
 * (`{"result":{"data":…}}`), the same header policy, the route's own headers. tests/e2e/front-seam
 * asks each framework for the same answer with the seam off and fails on any difference, so an
 * upgrade of express, tRPC or Apollo that changes their answers is caught there.
 */

/** What the front knows of a request when it offers it to the seam, its JSON body included (read, not yet parsed). */
export interface SeamRequest extends ReadBody {
  req: IncomingMessage;
  res: ServerResponse;
  /** `req.headers`, read once. */
  headers: IncomingHttpHeaders;
  requestId: string;
  /** When the request came, by `performance.now()` (for its access-log line). */
  startedMs: number;
  principal: Principal | null;
  ip: string | undefined;
  pathname: string;
  search: string;
  /** The REST route, when the path is one. */
  rest: RouteMatch | undefined;
  /** REST's rate-limit headers, already counted by the front. */
  rateHeaders: readonly string[];
}

/**
 * An answer's body as the seam keeps it: bytes, with its `Content-Length` worked out once. Bytes even
 * for small JSON: node joins a string body to its head as one string and copies it into the heap
 * for every answer (an 11.5 KB list: 76–104 µs of CPU per hit against 58–69 µs as bytes, and a
 * 334 B generation answer 76–80 against 60–73 µs), where bytes go out as they are beside the head.
 */
export interface SeamBody {
  data: Buffer;
  length: number;
  /** `length` as the header's text. */
  contentLength: string;
}

/**
 * Sends an answer the seam made (200): `head` (every header after `X-Request-Id` but the rate-limit
 * headers and `Content-Length`), REST's rate-limit headers counted for this request, and the body.
 */
export type SeamSend = (r: SeamRequest, route: string, head: readonly string[], rateHeaders: readonly string[], body: SeamBody) => void;

export interface SeamDeps {
  /** The metrics and log label of a REST route. */
  labelOf(route: RouteSpec): string;
  services: Services;
  contexts: RequestContexts;
  /** The counters tRPC's calls are charged on. */
  budgets: OperationBudgets;
  /** The header policy's headers for a request without `Origin` (header-policy.ts). */
  policy: readonly string[];
  send: SeamSend;
}

export interface GraphqlSeamDeps {
  pipeline: Pipeline;
  charging: OperationCharging;
  /** The /metrics label of an operation, by the name Apollo resolves. */
  routeLabel(operationName: string | null): string;
}

const JSON_TYPE = ['Content-Type', 'application/json; charset=utf-8'];
/** tRPC procedures the seam answers from the read model. */
const TRPC_PREFIX = '/trpc/';
/** `Accept` values for which Apollo answers `application/json; charset=utf-8`. */
const GRAPHQL_JSON_ACCEPTS = new Set([undefined, '', '*/*', 'application/json']);
const GRAPHQL_BODY_KEYS = new Set(['query', 'variables', 'operationName']);

const NO_HEADERS: readonly string[] = [];
const bytesBody = (data: Buffer): SeamBody => ({ data, length: data.length, contentLength: String(data.length) });
const seamBodyOf = (text: string): SeamBody => bytesBody(Buffer.from(text, 'utf8'));

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Whether a document selects `__schema` or `__type` (Apollo refuses introspection in production); worked out once per document. */
const introspection = new WeakMap<DocumentNode, boolean>();
function introspects(document: DocumentNode): boolean {
  let found = introspection.get(document);
  if (found !== undefined) return found;
  found = false;
  visit(document, {
    Field(node) {
      if (node.name.value !== '__schema' && node.name.value !== '__type') return undefined;
      found = true;
      return BREAK;
    },
  });
  introspection.set(document, found);
  return found;
}

export function createSeam(deps: SeamDeps) {
  const { services, contexts, send, labelOf, policy } = deps;
  let graphql: GraphqlSeamDeps | undefined;
  const jsonHead = [...policy, ...JSON_TYPE];
  // tRPC's `Vary` in place of the policy's (transport/trpc-http.ts).
  const trpcHead = [...policy.flatMap((v, i, all) => (i % 2 === 0 && all[i].toLowerCase() !== 'vary' ? [v, all[i + 1]] : [])), ...TRPC_RESULT_HEADERS];

  // Bodies of answers that are the same object for every hit (a frozen generation answer, a kept
  // read-model answer), made once per object and framing (REST and tRPC share kept answers).
  const framed = (wrap: (json: string) => string) => {
    const texts = new WeakMap<object, SeamBody>();
    return (answer: object) => {
      let body = texts.get(answer);
      if (!body) texts.set(answer, (body = seamBodyOf(wrap(JSON.stringify(answer)))));
      return body;
    };
  };
  // A hot file's head (the policy and its audio headers) and body, made once per file the hot tier
  // holds (its view is the same object until the file leaves the tier), one set per path.
  const hotFileAnswers = (headersOf: (file: AudioFile) => string[]) => {
    const answers = new WeakMap<object, { data: Buffer; head: string[]; body: SeamBody }>();
    return (file: AudioFile) => {
      let kept = answers.get(file.view);
      if (!kept || kept.data !== file.data) {
        kept = { data: file.data, head: [...policy, ...headersOf(file)], body: bytesBody(file.data) };
        answers.set(file.view, kept);
      }
      return kept;
    };
  };
  const audioAnswer = hotFileAnswers(audioHeaderPairs);
  const speechAnswer = hotFileAnswers((file) => speechHeaderPairs(file, true));
  const restBytes = framed((json) => json);
  const trpcBytes = framed(trpcResultText);

  const contextOf = (r: SeamRequest): DomainContext => contexts.of({ requestId: r.requestId, principal: r.principal, ip: r.ip });

  /** A REST read answered 200 from what is kept; undefined: hand it on. */
  const restRead = async (r: SeamRequest, label: string, read: (ctx: DomainContext) => Promise<object | undefined>) => {
    const answer = await read(contextOf(r));
    if (answer === undefined || r.res.headersSent) return false;
    send(r, label, jsonHead, r.rateHeaders, restBytes(answer));
    return true;
  };

  function rest(r: SeamRequest): boolean | Promise<boolean> {
    const { route, params } = r.rest!;
    const method = r.req.method;
    const label = labelOf(route);
    switch (route.operationId) {
      case 'getAudio': {
        const h = r.headers;
        if (method !== 'GET' || h.range !== undefined || h['if-none-match'] !== undefined || h['if-range'] !== undefined) return false;
        const file = services.tts.audio.hotAudio(contextOf(r), params.hash);
        if (!file) return false;
        const { head, body } = audioAnswer(file);
        send(r, label, head, r.rateHeaders, body);
        return true;
      }
      case 'generateSpeech': {
        // Parsed and checked only for a body `cachedGeneration` does not know: one it knows passed every check before.
        const answer = services.tts.generation.cachedGeneration(contextOf(r), () => rejectUnstorableStrings(parsedBody(r)), r.bodyBytes);
        if (!answer) return false;
        send(r, label, jsonHead, r.rateHeaders, restBytes(answer));
        return true;
      }
      case 'createSpeech': {
        const ctx = contextOf(r);
        const answer = services.tts.generation.cachedGeneration(
          ctx,
          () => speechGenerationRequest(rejectUnstorableStrings(parsedBody(r))).request,
          r.bodyBytes,
          'speech',
        );
        if (!answer) return false;
        const file = services.tts.audio.hotAudio(ctx, answer.hash, { permission: 'tts:generate' });
        if (!file) return false;
        const { head, body: audio } = speechAnswer(file);
        send(r, label, head, r.rateHeaders, audio);
        return true;
      }
      case 'listRequirements':
      case 'shortListRequirements': {
        const read = () => rejectUnstorableStrings(querystring.parse(r.search));
        return restRead(r, label, (ctx) => services.requirements.keptList(ctx, read, { rawText: r.search }));
      }
      case 'getRequirement':
      case 'shortGetRequirement':
        rejectUnstorableStrings(params);
        return restRead(r, label, (ctx) => services.requirements.keptGet(ctx, params.id));
      default:
        return false;
    }
  }

  /** A plain tRPC query (`?input=`, no batching or streaming) the read model keeps. */
  function trpc(r: SeamRequest): false | Promise<boolean> {
    const procedure = r.pathname.slice(TRPC_PREFIX.length);
    if (procedure !== 'compliance.requirements' && procedure !== 'compliance.requirement') return false;
    const h = r.headers;
    if (r.req.method !== 'GET' || !wantsPlainJson(h)) return false;
    const text = plainTrpcInput(r.search);
    if (text === null) return false;
    const read = (): unknown => rejectUnstorableStrings(text === undefined ? undefined : JSON.parse(text));
    return (async () => {
      const ctx = contextOf(r);
      let answer: object | undefined;
      if (procedure === 'compliance.requirements')
        answer = await services.requirements.keptList(ctx, () => read() ?? {}, { detail: true, rawText: text ?? '' });
      else {
        const input = read();
        if (isRecord(input) && typeof input.id === 'string') answer = await services.requirements.keptGet(ctx, input.id);
      }
      if (answer === undefined) return false;
      // Charged as tRPC charges a call (one request on the plan); at the limit tRPC refuses it.
      if (!(await deps.budgets.tryCharge('plan', { ip: r.ip, principal: r.principal }, 1))) return false;
      if (r.res.headersSent) return true;
      send(r, `/trpc:${procedure}`, trpcHead, NO_HEADERS, trpcBytes(answer));
      return true;
    })();
  }

  /** A GraphQL query over POST whose answer the response cache keeps for this caller. */
  function graphqlQuery(r: SeamRequest): false | Promise<boolean> {
    const g = graphql;
    const h = r.headers;
    if (!g || r.req.method !== 'POST' || !r.principal || !GRAPHQL_JSON_ACCEPTS.has(h.accept)) return false;
    if (h['apollo-require-preflight'] !== undefined || h['x-apollo-operation-name'] !== undefined || h['if-none-match'] !== undefined) return false;
    const body = parsedBody(r);
    if (!isRecord(body)) return false;
    for (const name in body) if (!GRAPHQL_BODY_KEYS.has(name)) return false;
    const { query, variables, operationName } = body;
    if (typeof query !== 'string' || query === '') return false;
    if (variables !== undefined && variables !== null && !isRecord(variables)) return false;
    if (operationName !== undefined && operationName !== null && (typeof operationName !== 'string' || operationName === '')) return false;
    const prepared = g.pipeline.prepare(query);
    if ('errors' in prepared) return false;
    const operation = getOperationAST(prepared.document, (operationName as string | null | undefined) ?? null);
    if (operation?.operation !== OperationTypeNode.QUERY || introspects(prepared.document)) return false;
    const label = g.routeLabel(operation.name?.value || null);
    const context: GqlContext = { services, domain: contextOf(r), onOperation: () => undefined };
    const op: Operation = {
      document: prepared.document,
      documentKey: prepared.documentKey,
      operationName: (operationName as string | null | undefined) ?? null,
      variables: (variables as Record<string, unknown> | null | undefined) ?? {},
      context,
    };
    return (async () => {
      const kept = await g.pipeline.kept(op);
      if (kept === undefined || kept.errors !== undefined) return false;
      // Input checks and list cost passed when the kept answer was made (same document, operation,
      // variables and caller); only the budgets are charged, as Apollo's admission charges them.
      if (!(await chargeUnlessRefused(g.charging, op))) return false;
      if (r.res.headersSent) return true;
      send(r, label, jsonHead, NO_HEADERS, graphqlBytes(kept));
      return true;
    })();
  }

  const graphqlTexts = new WeakMap<ExecutionResult, SeamBody>();
  /** Apollo's text for a result (its `stringifyResult`, which is ours), made once per kept result. */
  const graphqlBytes = (result: ExecutionResult) => {
    let body = graphqlTexts.get(result);
    if (!body) graphqlTexts.set(result, (body = seamBodyOf(stringifyResult({ errors: undefined, data: result.data, extensions: result.extensions }))));
    return body;
  };

  return {
    /** Given once GraphQL is mounted; until then GraphQL requests go to Apollo. */
    useGraphql(g: GraphqlSeamDeps) {
      graphql = g;
    },
    /**
     * Answers the request (true) or leaves it untouched for its framework (false). A request with
     * `Origin` is never taken: its CORS headers are decided per request. Synchronous when no I/O is
     * needed (a hot file, a cache-hit generation).
     */
    answer(r: SeamRequest): boolean | Promise<boolean> {
      if (r.headers.origin !== undefined) return false;
      try {
        if (r.rest) return rest(r);
        if (r.pathname.startsWith(TRPC_PREFIX)) return trpc(r);
        if (r.pathname === '/graphql') return graphqlQuery(r);
      } catch {
        // Invalid input, a refused permission, unstorable text: the framework answers it in its own words.
      }
      return false;
    },
  };
}

export type Seam = ReturnType<typeof createSeam>;
