import { honourConnectionClose } from './connection';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
// Imported, not the global: the global `performance` is a lazy getter node checks on every read.
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import type { Principal } from '../../domain/auth/principal';
import { DomainError } from '../../domain/errors';
import type { Services } from '../../domain/services';
import { envelopeForPath } from '../../rest-adapter/envelopes';
import { expressPath, sendError } from '../../rest-adapter/mount';
import type { Envelope, RouteSpec } from '../../rest-adapter/route';
import { ROUTE_TABLE } from '../../rest-adapter/route-table';
import { rateLimitError, type OperationBudgets, type PlanRateCounter, type RateVerdict, type TtsRateCounter } from '../../transport/budgets';
import { toClientError } from '../../transport/client-error';
import { bearerFrom } from '../../transport/credentials';
import { newRequestId } from '../../transport/request-id';
import type { RequestContexts } from '../../transport/request-context';
import type { Metrics } from '../metrics';
import { bodyWasRead, hasBody, isJsonBody, parsedBody, readJsonBody } from './body';
import type { HeaderPolicy } from './header-policy';
import { shapeForFrameworks, shapeOnArrival } from './object-shapes';
import { createRequestLog } from './request-log';
import { createRouteMatcher } from './route-match';
import { createSeam, type SeamRequest } from './seam';
import { createTurnWrites } from './turn-writes';

export { createHeaderPolicy, EXPOSED_HEADERS } from './header-policy';
export type { GraphqlSeamDeps } from './seam';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;
/** What express and the frameworks behind it find on a request the front hands on (and express's own route fields). */
type FrontRequest = IncomingMessage & { id?: string; principal?: Principal | null; body?: unknown; route?: { path: string }; baseUrl?: string };

export interface FrontDeps {
  services: Services;
  contexts: RequestContexts;
  headers: HeaderPolicy;
  ttsCounter: TtsRateCounter;
  planCounter: PlanRateCounter;
  budgets: OperationBudgets;
  clientIpOf(req: IncomingMessage, headers?: IncomingHttpHeaders): string;
  log: Logger;
  metrics: Metrics;
}

/** The caller's `X-Request-Id` when it is a sane token, else a fresh one. */
function requestIdOf(headers: IncomingHttpHeaders): string {
  const given = headers['x-request-id'];
  return typeof given === 'string' && given.length <= 100 && /^[\w.:-]+$/.test(given) ? given : newRequestId();
}

const NOT_LIMITED: RateVerdict = { exceeded: false, retryAfterSeconds: 0, headers: [] };

/**
 * The request front: the node:http listener in front of express (and tRPC and Apollo behind it). It
 * does the edge work once for every request — request id, the caller's key and principal, REST's
 * limiter (speech per address, the plan per key), the header policy (security and CORS), the JSON
 * body, metrics and the access log — and hands the frameworks a request that already carries all of
 * it (`req.id`, `req.principal`, `req.body`, the headers set on `res`). The few answers that must run
 * at the limit are sent by the seam (seam.ts) without a framework; everything else goes to express.
 *
 * Errors found at the edge (a database that cannot authenticate, a body that is not JSON or too
 * large, a limit reached, a method the path does not take) are answered here, in the envelope the
 * path documents.
 */
export function createFront(deps: FrontDeps) {
  const { services, headers: policy, log } = deps;
  const lookup = createRouteMatcher(ROUTE_TABLE);
  /** The metrics and log label of each REST route: its express path (`/v1/requirements/:id`). */
  const labels = new Map<RouteSpec, string>(ROUTE_TABLE.map((r) => [r, expressPath(r.path)]));
  const requestFinished = createRequestLog(deps.metrics, log);
  const turnWrites = createTurnWrites();
  const seam = createSeam({
    labelOf: (route) => labels.get(route)!,
    policy: policy.plainPairs,
    services,
    contexts: deps.contexts,
    budgets: deps.budgets,
    send(r, route, head, rateHeaders, body) {
      // Filled in place at its final length: spreading grew the array twice on every answer.
      const pairs = new Array<string>(head.length + rateHeaders.length + 4);
      pairs[0] = 'X-Request-Id';
      pairs[1] = r.requestId;
      let i = 2;
      for (let j = 0; j < head.length; j++) pairs[i++] = head[j];
      for (let j = 0; j < rateHeaders.length; j++) pairs[i++] = rateHeaders[j];
      pairs[i++] = 'Content-Length';
      pairs[i] = body.contentLength;
      turnWrites.send(r.res, pairs, body.data, () => finished(r.req, r.res, r.pathname, route, r.requestId, r.principal, r.startedMs));
    },
  });

  // The path as the client sent it (express rewrites `req.url` under a mount point: `/graphql` → `/`).
  const finished = (
    req: IncomingMessage,
    res: ServerResponse,
    pathname: string,
    route: string,
    requestId: string,
    principal: Principal | null | undefined,
    startedMs: number,
  ) => requestFinished(req, pathname, route, res.statusCode, requestId, principal?.keyId, startedMs);

  /** An error found at the edge, in the path's documented shape: GraphQL's `errors[]` on /graphql, else the REST envelope. */
  function refuse(res: ServerResponse, requestId: string, envelope: Envelope | 'graphql', thrown: unknown) {
    if (envelope !== 'graphql') return sendError(res, requestId, envelope, thrown, log);
    const err = toClientError(thrown);
    if (err.serverSide) log.error({ err: thrown, requestId }, 'graphql request failed');
    const body = JSON.stringify({ errors: [{ message: err.message, extensions: { code: err.code, status: err.status } }] });
    if (err.headers) for (const name in err.headers) res.setHeader(name, err.headers[name]);
    res.writeHead(err.status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body) });
    res.end(body);
  }

  /**
   * One request's passage through the edge. Each step runs at once when what it needs is at hand (a
   * known key, an in-memory counter, a small body) and after a promise only when it is not, so the
   * edge makes no promise of its own, and a hot audio or cache-hit generation answer none at all
   * (read-model hits still await the read model in the seam): a promise per step is an allocation and
   * a microtask per step, on every request.
   *
   * What the edge learns (the request id, the principal, the body, when it came) stays on the
   * passage, and reaches node's request object only when express is handed it (`handOn`). Node's own
   * code reads every request it parses at the same few places (`req.headers`, the stream's state):
   * request objects of one shape keep those places fast, and a request given fields one by one takes
   * a new shape at each, which made them the slowest kind of property read V8 has, on every request
   * (counted under callgrind: 48 such reads per cache-hit generation against bare node:http's 19).
   * For the same reason `req.headers`, a getter, is read once, and every request and response is
   * given the same fields in one order (object-shapes.ts).
   */
  interface Passage extends SeamRequest {
    req: FrontRequest;
    app: Handler;
    envelope: Envelope | 'graphql';
    ip: string;
  }

  /** An error at the edge: the headers every answer carries, then the path's error envelope. */
  function fail(p: Passage, err: unknown) {
    const { req, res } = p;
    if (!res.headersSent) {
      policy.apply(req, res);
      res.setHeader('X-Request-Id', p.requestId);
      for (let i = 0; i < p.rateHeaders.length; i += 2) res.setHeader(p.rateHeaders[i], p.rateHeaders[i + 1]);
    }
    refuse(res, p.requestId, p.envelope, err);
  }

  /** A step called back from an event (the body's last bytes): a throw is the edge's error, not an uncaught exception. */
  function resume(p: Passage, step: (p: Passage) => void) {
    try {
      step(p);
    } catch (err) {
      fail(p, err);
    }
  }

  /** `next(value)` now, or once the promise settles; a throw or rejection is the edge's error. */
  function then<T>(p: Passage, value: T | Promise<T>, next: (p: Passage, value: T) => void) {
    if (!(value instanceof Promise)) return next(p, value);
    value.then((v) => next(p, v)).catch((err: unknown) => fail(p, err));
  }

  function edge(
    req: FrontRequest,
    res: ServerResponse,
    app: Handler,
    headers: IncomingHttpHeaders,
    requestId: string,
    startedMs: number,
    pathname: string,
    search: string,
  ) {
    const lookedUp = pathname.startsWith('/api/') || pathname.startsWith('/v1/') ? lookup(req.method ?? 'GET', pathname) : undefined;
    const rest = lookedUp?.match;
    const envelope: Envelope | 'graphql' = rest ? rest.route.envelope : pathname === '/graphql' ? 'graphql' : envelopeForPath(pathname);

    // CORS preflights are answered by the policy; every other answer carries its headers from here on.
    if (req.method === 'OPTIONS' || headers.origin !== undefined) {
      if (policy.apply(req, res)) return;
    }
    if (lookedUp?.allowed !== undefined) {
      res.setHeader('Allow', lookedUp.allowed.join(', '));
      policy.apply(req, res);
      res.setHeader('X-Request-Id', requestId);
      return refuse(
        res,
        requestId,
        envelope,
        new DomainError('METHOD_NOT_ALLOWED', `${req.method} is not allowed on ${pathname.slice(0, 200)}; allowed: ${lookedUp.allowed.join(', ')}`, {
          details: { method: req.method, allowed: lookedUp.allowed },
        }),
      );
    }

    const p: Passage = {
      req,
      res,
      headers,
      app,
      requestId,
      startedMs,
      pathname,
      search,
      rest,
      envelope,
      ip: deps.clientIpOf(req, headers),
      principal: null,
      rateHeaders: NOT_LIMITED.headers,
      bodyBytes: undefined,
      unparsedStrict: undefined,
    };
    const authorization = headers.authorization;
    const secret = authorization === undefined ? undefined : bearerFrom(authorization);
    try {
      const known = secret === undefined ? null : services.auth.knownPrincipal(secret);
      then(p, known === undefined ? services.auth.authenticate(secret) : known, authenticated);
    } catch (err) {
      fail(p, err);
    }
  }

  /** REST's limiter for the route: the speech budget per address, or the plan per key (none for the plan's exempt callers). */
  function authenticated(p: Passage, principal: Principal | null) {
    p.principal = principal;
    if (!p.rest) return charged(p, NOT_LIMITED);
    then(p, p.rest.route.limiter === 'tts' ? deps.ttsCounter.hit(p.ip) : deps.planCounter.hit({ principal, ip: p.ip }), charged);
  }

  /** The JSON body, read once: every REST route but the raw uploads, and GraphQL's POST. */
  function charged(p: Passage, verdict: RateVerdict) {
    p.rateHeaders = verdict.headers;
    const { req, res, rest, headers } = p;
    if (verdict.exceeded) return fail(p, rateLimitError(verdict.retryAfterSeconds));
    if (hasBody(headers)) {
      if (rest && !rest.route.rawBody) {
        if (!isJsonBody(headers)) return fail(p, new DomainError('UNSUPPORTED_MEDIA_TYPE'));
        return readJsonBody(req, res, headers, false, p, (err) => (err === undefined ? resume(p, offer) : fail(p, err)));
      }
      if (p.pathname === '/graphql' && req.method === 'POST' && isJsonBody(headers))
        return readJsonBody(req, res, headers, true, p, (err) => (err === undefined ? resume(p, offer) : fail(p, err)));
    }
    offer(p);
  }

  /** The seam answers a hit; anything else goes on to the frameworks. */
  function offer(p: Passage) {
    // The passage is the seam's request: it carries everything the seam reads.
    const answered = seam.answer(p);
    if (answered instanceof Promise)
      answered
        .then(
          (done) => done || handOn(p),
          () => handOn(p),
        )
        .catch((err: unknown) => fail(p, err));
    else if (!answered) handOn(p);
  }

  /** Express (and tRPC, Apollo behind it) answers, with everything above already on the request. */
  function handOn(p: Passage) {
    const { req, res, rateHeaders, requestId } = p;
    if (res.headersSent) return;
    try {
      // A body kept as bytes is parsed now; one that is not JSON is refused here, in the path's envelope.
      parsedBody(p);
    } catch (err) {
      return fail(p, err);
    }
    // What the frameworks read from the request (Apollo wants a parsed body or none on every request),
    // and express's own fields, in one order (object-shapes.ts).
    shapeForFrameworks(req, res, requestId, p.principal, bodyWasRead(p) ? p.body : undefined);
    if (p.headers.origin === undefined && req.method !== 'OPTIONS') policy.apply(req, res);
    res.setHeader('X-Request-Id', requestId);
    for (let i = 0; i < rateHeaders.length; i += 2) res.setHeader(rateHeaders[i], rateHeaders[i + 1]);
    // The label: the REST route's; GraphQL and tRPC name their operation in `res.locals.route`; any
    // other express route (docs, console, metrics) by its path.
    const label = p.rest ? labels.get(p.rest.route) : undefined;
    res.once('finish', () => {
      const route = label ?? (res as { locals?: { route?: string } }).locals?.route ?? (req.route ? `${req.baseUrl ?? ''}${req.route.path}` : 'unmatched');
      finished(req, res, p.pathname, route, requestId, req.principal, p.startedMs);
    });
    p.app(req, res);
  }

  /** The server's request listener, in front of `app` (express). */
  return {
    listener(app: Handler): Handler {
      return (req: FrontRequest, res) => {
        shapeOnArrival(req, res);
        const startedMs = performance.now();
        const headers = req.headers;
        const requestId = requestIdOf(headers);
        honourConnectionClose(headers.connection, res);
        const url = req.url ?? '/';
        const q = url.indexOf('?');
        const pathname = q < 0 ? url : url.slice(0, q);
        const search = q < 0 ? '' : url.slice(q + 1);
        try {
          edge(req, res, app, headers, requestId, startedMs, pathname, search);
        } catch (err) {
          log.error({ err, requestId }, 'request front failed');
          if (!res.headersSent) refuse(res, requestId, 'integration', err);
          else res.destroy();
        }
      };
    },
    /** GraphQL queries the response cache keeps, once GraphQL is mounted. */
    useGraphql: seam.useGraphql,
  };
}

export type Front = ReturnType<typeof createFront>;
