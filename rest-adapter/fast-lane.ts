import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestContexts } from '../transport/request-context';
import type { Principal } from '../domain/auth/principal';
import type { Services } from '../domain/services';
import { rateLimitError, type RateVerdict, type TtsRateCounter } from '../transport/budgets';
import { bearerFrom } from '../transport/credentials';
import { errorBody } from './envelopes';
import type { RouteSpec } from './route';

/**
 * The fast lane: routes that declare `answerFromMemory` (a repeated POST /api/v1/generate answered
 * from the hot tier) are served here, in front of express. Express's per-request machinery (router,
 * a dozen middlewares, body parser) costs several times the work of such an answer; here the same
 * steps run without it: request id, the same security and CORS headers (captured from the real
 * middlewares at start-up), the caller's key, the same rate-limit counter, metrics. Whatever the lane
 * cannot answer from memory — a miss, an invalid body, an error, a request it does not take — goes
 * to express unchanged; the body, if already read, travels with it (`preReadBodyOf`).
 */

/** Bodies larger than this go to express without being read here (its limit and errors apply). */
const MAX_BODY_BYTES = 64 * 1024;
const JSON_TYPE = /^application\/json\s*(;\s*charset=utf-8\s*)?$/i;
const PRE_READ = Symbol('fastLane.preReadBody');

/** What every lane in front of express works with (this one, the read lane and its GraphQL branch). */
export interface LaneDeps {
  services: Services;
  contexts: RequestContexts;
  /** Headers every answer carries, as the security and CORS middlewares set them for a request without `Origin`. */
  staticHeaders: Record<string, string>;
  requestIdOf(req: IncomingMessage): string;
  clientIpOf(req: IncomingMessage): string | undefined;
  authenticate(secret: string): Promise<Principal | null>;
  /** Called once an answer is sent (metrics, debug log), with the route label and status. */
  answered(req: IncomingMessage, route: string, status: number, requestId: string, startedNs: bigint): void;
}

export interface FastLaneDeps extends LaneDeps {
  routes: RouteSpec[];
  ttsCounter: TtsRateCounter;
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** The body the fast lane (or the read lane's GraphQL branch) read before handing the request on, if it did. */
export function preReadBodyOf(req: IncomingMessage): string | undefined {
  return (req as any)[PRE_READ];
}

/** Hands a request whose body was read on to `fallback` with that body (`preReadBodyOf`). */
export function handOnWithBody(req: IncomingMessage, res: ServerResponse, text: string, fallback: Handler) {
  if (res.headersSent) return;
  (req as any)[PRE_READ] = text;
  fallback(req, res);
}

/**
 * A pre-read body parsed as `express.json()` (strict) parses what it reads: a UTF-8 byte order mark
 * dropped, an empty body `{}`, only an object or an array at the top; what it refuses throws its
 * error (status 400, type `entity.parse.failed`), for express's error handler to answer.
 */
export function parseLikeExpressJson(text: string): unknown {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (body.length === 0) return {};
  const first = /^[\x20\x09\x0a\x0d]*(.|$)/s.exec(body)?.[1];
  try {
    if (first !== '{' && first !== '[') throw new SyntaxError(`Unexpected token ${first ?? 'end'} in JSON`);
    return JSON.parse(body);
  } catch (err) {
    throw Object.assign(err as Error, { status: 400, statusCode: 400, expose: true, type: 'entity.parse.failed' });
  }
}

/** Reads a body of at most MAX_BODY_BYTES (the lanes take only requests with such a Content-Length) as UTF-8 text. */
export function readSmallBody(req: IncomingMessage, done: (text: string) => void) {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => void chunks.push(chunk));
  // node:http delivers exactly Content-Length bytes.
  req.once('end', () => done(chunks.length === 1 ? chunks[0].toString('utf8') : Buffer.concat(chunks).toString('utf8')));
}

/** Whether a request's body is plain JSON of at most MAX_BODY_BYTES, without Origin or anything else that needs express's handling. */
export function takesSmallJsonBody(req: IncomingMessage): boolean {
  const h = req.headers;
  const length = Number(h['content-length']);
  return (
    length > 0 &&
    length <= MAX_BODY_BYTES &&
    h['transfer-encoding'] === undefined &&
    h['content-encoding'] === undefined &&
    h.origin === undefined &&
    h.expect === undefined &&
    JSON_TYPE.test(h['content-type'] ?? '')
  );
}

/**
 * Headers a chain of middlewares sets on a response, captured once with a recording response (the
 * request has no `Origin` and no other header: exactly the requests the lane takes).
 */
export async function captureHeaders(middlewares: ((req: any, res: any, next: (err?: unknown) => void) => void)[], method = 'POST'): Promise<Record<string, string>> {
  const headers = new Map<string, { name: string; value: string }>();
  const res = {
    setHeader: (name: string, value: unknown) => void headers.set(name.toLowerCase(), { name, value: Array.isArray(value) ? value.join(', ') : String(value) }),
    getHeader: (name: string) => headers.get(name.toLowerCase())?.value,
    hasHeader: (name: string) => headers.has(name.toLowerCase()),
    removeHeader: (name: string) => void headers.delete(name.toLowerCase()),
    getHeaders: () => Object.fromEntries([...headers].map(([k, v]) => [k, v.value])),
  };
  const req = { method, headers: {}, url: '/', originalUrl: '/', path: '/' };
  for (const mw of middlewares) {
    await new Promise<void>((resolve, reject) => mw(req, res, (err?: unknown) => (err ? reject(err) : resolve())));
  }
  return Object.fromEntries([...headers.values()].map(({ name, value }) => [name, value]));
}

export function createFastLane(deps: FastLaneDeps) {
  const byPath = new Map<string, RouteSpec>();
  for (const route of deps.routes) {
    if (route.answerFromMemory && route.method === 'post' && !route.path.includes('{')) byPath.set(route.path, route);
  }


  // A frozen answer (the same object for every hit on one cached item) is serialised once.
  const serialised = new WeakMap<object, { json: string; length: string }>();
  const serialise = (body: unknown) => {
    const keep = typeof body === 'object' && body !== null && Object.isFrozen(body);
    let made = keep ? serialised.get(body) : undefined;
    if (!made) {
      const json = JSON.stringify(body);
      made = { json, length: String(Buffer.byteLength(json)) };
      if (keep) serialised.set(body, made);
    }
    return made;
  };
  // Headers as flat name/value pairs: node writes them in order without building an object.
  const staticPairs = [...Object.entries(deps.staticHeaders).flat(), 'Content-Type', 'application/json; charset=utf-8'];
  const send = (res: ServerResponse, status: number, headers: string[], body: unknown) => {
    const { json, length } = serialise(body);
    headers.push('Content-Length', length);
    res.writeHead(status, headers);
    res.end(json);
  };

  /**
   * Synchronous all the way when it can be (no key to look up, the in-process rate-limit store): a
   * promise per step costs more than the answer itself here.
   */
  function answer(route: RouteSpec, req: IncomingMessage, res: ServerResponse, text: string, startedNs: bigint, fallback: Handler) {
    // Invalid JSON, a refused key, a validation error, a miss...: express answers it, in the documented envelope.
    const handOn = () => {
      if (res.headersSent) return;
      (req as any)[PRE_READ] = text;
      fallback(req, res);
    };
    const respond = (principal: Principal | null) => {
      let requestId: string;
      let result: unknown;
      let verdict: RateVerdict | Promise<RateVerdict>;
      try {
        requestId = deps.requestIdOf(req);
        const ctx = deps.contexts.of({ requestId, principal, ip: deps.clientIpOf(req) });
        result = route.answerFromMemory!({ ctx, services: deps.services, body: () => JSON.parse(text), bodyText: text });
        if (result === undefined) return handOn();
        // Counted only when answered here, so a request handed on is counted once, by express.
        verdict = deps.ttsCounter.hit(ctx.ip);
      } catch {
        return handOn();
      }
      const finish = (limit: RateVerdict) => {
        const headers = staticPairs.concat(limit.headers);
        headers.push('X-Request-Id', requestId);
        const status = limit.exceeded ? 429 : route.status ?? 200;
        try {
          if (limit.exceeded) {
            headers.push('Retry-After', String(limit.retryAfterSeconds));
            send(res, status, headers, errorBody(route.envelope, rateLimitError(limit.retryAfterSeconds), requestId));
          } else {
            send(res, status, headers, result);
          }
        } catch {
          return handOn();
        }
        deps.answered(req, route.path, status, requestId, startedNs);
      };
      if (verdict instanceof Promise) verdict.then(finish).catch(handOn);
      else finish(verdict);
    };
    const auth = req.headers.authorization;
    const secret = auth === undefined ? undefined : bearerFrom(auth);
    if (secret === undefined) respond(null);
    else deps.authenticate(secret).then(respond).catch(handOn);
  }

  /** The server's request listener: the lane when it can, else `fallback` (express). */
  return function fastLane(fallback: Handler): Handler {
    return (req, res) => {
      const route = req.method === 'POST' ? byPath.get(req.url ?? '') : undefined;
      // Only plain requests: anything that needs express's handling (CORS, a compressed body, a large one) skips the lane.
      if (!route || !takesSmallJsonBody(req)) return fallback(req, res);
      const startedNs = process.hrtime.bigint();
      readSmallBody(req, (text) => answer(route, req, res, text, startedNs, fallback));
    };
  };
}
