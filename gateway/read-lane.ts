import type { IncomingMessage, ServerResponse } from 'node:http';
import querystring from 'node:querystring';
import type { DomainContext } from '../domain/context';
import { rejectUnstorableStrings } from '../domain/validation';
import type { Caller, PlanRateCounter, RateVerdict } from '../transport/budgets';
import { bearerFrom } from '../transport/credentials';
import { expressPath } from '../rest-adapter/mount';
import type { RouteSpec } from '../rest-adapter/route';
import type { LaneQuery } from '../trpc/init';
import type { LaneDeps } from '../rest-adapter/fast-lane';
import { createGraphqlBranch } from './read-lane-graphql';

/**
 * The read lane: a read of a REST route that declares `answerFromParams` or of a tRPC query in
 * `LANE_QUERIES` is answered in front of express, tRPC and their middlewares, kept or computed, with
 * the bytes and headers they would send: request id, the security and CORS headers (captured from
 * the real middlewares at start-up), the caller's key, the plan limit counted once on the same
 * counter (with its `X-RateLimit-*` headers on REST), metrics. Only plain GETs are taken. Like
 * express, the lane charges the plan limit before anything is read or computed; a request over its
 * limit, an error (invalid query, refused key or permission, unknown id, database unavailable) or
 * anything unusual goes to express unchanged, its count taken back first (nothing sent, nothing
 * counted), and express answers it in its own words. A `POST /graphql` query, kept or computed, is
 * the GraphQL branch's (gateway/read-lane-graphql.ts).
 */
/** `staticHeaders` are those of a GET; `postHeaders` the same for a POST (the GraphQL branch). */
export interface ReadLaneDeps extends LaneDeps {
  routes: RouteSpec[];
  /** tRPC procedure paths (`compliance.requirements`) the lane answers, kept or computed. */
  procedures: ReadonlyMap<string, LaneQuery>;
  planCounter: PlanRateCounter;
  postHeaders: Record<string, string>;
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

const TRPC_PREFIX = '/trpc/';
/** What @trpc/server sets on every answer (it replaces the CORS middleware's `Vary: Origin`). */
const TRPC_VARY = 'trpc-accept, accept';

/** One way to answer: which domain call, how its bytes are framed, under which metrics label. */
interface Lane {
  label: string;
  /** The answer, kept or computed (undefined or a thrown error: express answers). */
  answer(ctx: DomainContext): Promise<unknown>;
  /** Bytes of an answer (a kept answer is never changed, so its bytes are made once). */
  bytes(answer: unknown): Buffer;
  /** Header name/value pairs before the rate-limit headers, and after them. */
  head: string[];
  tail: string[];
  /** tRPC streams its body (chunked); express sends a Content-Length. */
  chunked: boolean;
  /** REST shows the plan limit's headers; tRPC charges the same limit without them. */
  rateHeaders: boolean;
}

/** Template segments of GET routes, in table order, by segment count: `{x}` matches one non-empty segment. */
interface Template {
  segments: (string | null)[];
  params: string[];
  route: RouteSpec;
}

export function createReadLane(deps: ReadLaneDeps) {
  const templates = new Map<number, Template[]>();
  for (const route of deps.routes) {
    // Every GET route, answered here or not: the lane must pick the route express would run first.
    if (route.method !== 'get') continue;
    const parts = route.path.split('/');
    const params: string[] = [];
    const segments = parts.map((p) => {
      const m = /^\{(\w+)\}$/.exec(p);
      if (!m) return p.toLowerCase();
      params.push(m[1]);
      return null;
    });
    // A template with a partial parameter (`x-{y}`) is matched by express alone.
    if (segments.some((s) => s !== null && s.includes('{'))) continue;
    let list = templates.get(parts.length);
    if (!list) templates.set(parts.length, (list = []));
    list.push({ segments, params, route });
  }

  /** The GET route express would run first for `path` (its matching: case-insensitive, no trailing slash here), if any. */
  const routeOf = (path: string): { route: RouteSpec; params: Record<string, string> } | undefined => {
    const parts = path.split('/');
    const candidates = templates.get(parts.length);
    if (!candidates) return undefined;
    for (const t of candidates) {
      let ok = true;
      for (let i = 0; i < parts.length && ok; i++) {
        const s = t.segments[i];
        ok = s === null ? parts[i].length > 0 : s === parts[i] || s === parts[i].toLowerCase();
      }
      if (!ok) continue;
      const params: Record<string, string> = {};
      let p = 0;
      for (let i = 0; i < parts.length; i++) if (t.segments[i] === null) params[t.params[p++]] = decodeURIComponent(parts[i]);
      return { route: t.route, params };
    }
    return undefined;
  };

  const staticPairs = Object.entries(deps.staticHeaders).flat();
  const restTail = ['Content-Type', 'application/json; charset=utf-8'];
  // tRPC sets `vary` over the CORS middleware's `Vary` (same place, its own name and value), then its content type.
  const trpcPairs: string[] = [];
  let varied = false;
  for (const [name, value] of Object.entries(deps.staticHeaders)) {
    if (name.toLowerCase() === 'vary') {
      trpcPairs.push('vary', TRPC_VARY);
      varied = true;
    } else trpcPairs.push(name, value);
  }
  const trpcTail = varied ? ['content-type', 'application/json'] : ['content-type', 'application/json', 'vary', TRPC_VARY];

  const restBytes = new WeakMap<object, Buffer>();
  const trpcBytes = new WeakMap<object, Buffer>();
  // A read model that keeps nothing answers a new object every time: its bytes are made once anyway.
  const keeps = deps.services.readModel.keeps;
  const bytesOf = (made: WeakMap<object, Buffer>, answer: unknown, wrap: (json: string) => string) => {
    const keep = keeps && typeof answer === 'object' && answer !== null;
    let buf = keep ? made.get(answer) : undefined;
    if (!buf) {
      buf = Buffer.from(wrap(JSON.stringify(answer)), 'utf8');
      if (keep) made.set(answer, buf);
    }
    return buf;
  };
  const asIs = (json: string) => json;
  // What tRPC sends for a query's result without a transformer: JSON.stringify({ result: { data } }).
  const asTrpcResult = (json: string) => `{"result":{"data":${json}}}`;

  /** The lane for a request, or undefined: express (and tRPC behind it) answers it. */
  const laneOf = (req: IncomingMessage): Lane | undefined => {
    const url = req.url ?? '';
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    const search = q < 0 ? '' : url.slice(q + 1);
    if (path.startsWith(TRPC_PREFIX)) {
      const procedure = path.slice(TRPC_PREFIX.length);
      const query = deps.procedures.get(procedure);
      if (!query) return undefined;
      const h = req.headers;
      // Streaming and batching ask for other framing: tRPC's own.
      if (h['trpc-accept'] !== undefined || (h.accept !== undefined && h.accept.includes('application/jsonl'))) return undefined;
      const params = new URLSearchParams(search);
      let text: string | null = null;
      for (const [name, value] of params) {
        if (name !== 'input' || text !== null) return undefined;
        text = value;
      }
      // As tRPC reads it: an absent or empty `input` is no input.
      const input = text ? JSON.parse(text) : undefined;
      rejectUnstorableStrings(input);
      return {
        label: `/trpc:${procedure}`,
        answer: (ctx) => query({ ctx, services: deps.services, input }),
        bytes: (answer) => bytesOf(trpcBytes, answer, asTrpcResult),
        head: trpcPairs,
        tail: trpcTail,
        chunked: true,
        rateHeaders: false,
      };
    }
    const found = routeOf(path);
    const answerFromParams = found?.route.answerFromParams;
    // The lane sends 200 and the body: a route answering with another status is express's.
    if (!found || !answerFromParams || (found.route.status ?? 200) !== 200) return undefined;
    const query = querystring.parse(search) as Record<string, unknown>;
    rejectUnstorableStrings(found.params);
    rejectUnstorableStrings(query);
    return {
      label: expressPath(found.route.path),
      answer: (ctx) => answerFromParams({ ctx, services: deps.services, query, params: found.params }),
      bytes: (answer) => bytesOf(restBytes, answer, asIs),
      head: staticPairs,
      tail: restTail,
      chunked: false,
      rateHeaders: true,
    };
  };

  /** Only plain GETs: a body, an `Origin` (CORS answers differ), a conditional request go to express. */
  const takes = (req: IncomingMessage) => {
    const h = req.headers;
    return (
      req.method === 'GET' &&
      h.origin === undefined &&
      h['content-length'] === undefined &&
      h['transfer-encoding'] === undefined &&
      h['if-none-match'] === undefined &&
      h['if-modified-since'] === undefined
    );
  };

  async function answer(lane: Lane, req: IncomingMessage, res: ServerResponse, startedNs: bigint): Promise<boolean> {
    const auth = req.headers.authorization;
    const secret = auth === undefined ? undefined : bearerFrom(auth);
    const principal = secret === undefined ? null : await deps.authenticate(secret);
    const requestId = deps.requestIdOf(req);
    const ip = deps.clientIpOf(req);
    const caller: Caller = { principal, ip };
    // Charged before anything is read or computed, as express's limiter (and tRPC's budget
    // middleware) charges before the route runs. A request handed on from here on has its count
    // taken back first, so express (or tRPC) counts it once, in its own words.
    const counted = deps.planCounter.hit(caller);
    const verdict: RateVerdict = counted instanceof Promise ? await counted : counted;
    // Over the limit: express refuses it (429) without computing anything.
    if (verdict.exceeded) return handOn(caller);
    // The request's own context, as express's `contexts.ofRequest` makes it: a fresh EntityManager
    // fork and DataLoaders of its own, made on first use.
    const ctx = deps.contexts.of({ requestId, principal, ip });
    let body: Buffer;
    try {
      const answer = await lane.answer(ctx);
      if (answer === undefined) return handOn(caller);
      body = lane.bytes(answer);
    } catch {
      // An invalid query, an unknown id, a refused permission, the database unavailable: express
      // computes again and answers the error through the kit's mapping (and logs what it logs). A
      // read is idempotent and such errors are rare, so a second computation is the price of one
      // error path, the frameworks' own (docs/decisions.md).
      return handOn(caller);
    }
    if (res.headersSent || res.destroyed) return true;
    const headers = ['X-Request-Id', requestId, ...lane.head];
    if (lane.rateHeaders) headers.push(...verdict.headers);
    headers.push(...lane.tail);
    if (lane.chunked) {
      res.writeHead(200, headers);
      res.write(body);
      res.end();
    } else {
      headers.push('Content-Length', String(body.length));
      res.writeHead(200, headers);
      res.end(body);
    }
    deps.answered(req, lane.label, 200, requestId, startedNs);
    return true;
  }

  /** Takes back the lane's count of a request it does not answer; false: express answers. */
  async function handOn(caller: Caller): Promise<false> {
    await deps.planCounter.undo(caller);
    return false;
  }

  const graphql = createGraphqlBranch({ ...deps, staticHeaders: deps.postHeaders });

  /** The server's request listener: the lane when it can, else `fallback` (express). */
  const readLane = function readLane(fallback: Handler): Handler {
    return (req, res) => {
      if (!takes(req)) {
        if (!graphql.take(req, res, fallback)) fallback(req, res);
        return;
      }
      let lane: Lane | undefined;
      try {
        lane = laneOf(req);
      } catch {
        lane = undefined; // an undecodable path, invalid JSON input, unstorable text: express says so
      }
      if (!lane) return fallback(req, res);
      const startedNs = process.hrtime.bigint();
      answer(lane, req, res, startedNs).then(
        (done) => {
          if (!done && !res.headersSent) fallback(req, res);
        },
        () => {
          if (!res.headersSent) fallback(req, res);
        },
      );
    };
  };
  /** `graphql.use(...)`: GraphQL queries too, kept or computed, once the GraphQL server is mounted. */
  return Object.assign(readLane, { graphql: { use: graphql.use } });
}
