import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * Node's request and response objects in few shapes, whoever answers them (the seam: one framework's
 * worth of shortcut, kept here; tests/e2e/front-shapes.test.ts fails when express or its router starts
 * adding a field this list does not name).
 *
 * V8 gives an object a new hidden class for every field added to it and for a changed prototype. Node's
 * HTTP and stream code reads every request and response at the same few places; a place that has seen
 * more than four classes becomes megamorphic for good and looks each field up in a global cache from
 * then on. Express gives every request and response it serves a prototype of its own and adds its
 * fields in an order that depends on the route (router, parseurl, on-finished, the body parsers), and
 * node adds `statusCode`, `statusMessage` and `_eventsCount` when they are first written. After a few
 * requests of each kind (the console page, a generation miss, a GraphQL query) node's own code ran
 * megamorphic for every request, the seam's hits included: +12k CPU instructions per cache-hit
 * generation under callgrind (98.5k → 110.8k), after one console page load alone.
 *
 * So every object gets those fields at once, in one order, with the value it would have read anyway
 * (own fields copied from what it inherits), and a request handed to express gets express's fields
 * before express sees it. Each place in node then sees a handful of classes at most.
 */

/** The fields express (with its router, parseurl and on-finished) adds to a request it serves, after ours (`id`, `principal`, `body`, `res`). */
export const EXPRESS_REQUEST_FIELDS = ['next', 'baseUrl', 'originalUrl', '_parsedUrl', 'params', 'route', '_parsedOriginalUrl', '__onFinished'] as const;
/** The fields express (with on-finished) adds to a response it serves. */
export const EXPRESS_RESPONSE_FIELDS = ['locals', '__onFinished'] as const;

type Fields = Record<string, unknown>;

/**
 * Every request and response, as it arrives: the fields node adds on first write, as own fields with
 * the values they inherit (`statusCode` and `statusMessage` from ServerResponse's prototype,
 * `_eventsCount` from EventEmitter's: a readable stream starts without a count of its own).
 */
export function shapeOnArrival(req: IncomingMessage, res: ServerResponse): void {
  // Each reads the inherited value and writes it as the object's own.
  res.statusCode = res.statusCode;
  res.statusMessage = res.statusMessage;
  const counted = req as unknown as Fields;
  counted._eventsCount = counted._eventsCount;
}

/**
 * A request handed to express: our fields, then express's in one order, before express adds them in
 * the order of the route. `res` is the value express gives it; every other starts undefined, which
 * each of them reads as "not set yet" (express `if (!res.locals)`, router `originalUrl ||`, parseurl
 * and on-finished by type, body-parser `'body' in req` and tRPC `req.body !== undefined`). A field
 * already set (by express's JSON parser for a large body) is left as it is.
 */
export function shapeForFrameworks(req: IncomingMessage, res: ServerResponse, id: string, principal: unknown, body: unknown): void {
  const r = req as unknown as Fields;
  r.id = id;
  r.principal = principal;
  r.body = body;
  r.res = res;
  for (const name of EXPRESS_REQUEST_FIELDS) if (!(name in r)) r[name] = undefined;
  const s = res as unknown as Fields;
  for (const name of EXPRESS_RESPONSE_FIELDS) if (!(name in s)) s[name] = undefined;
}
