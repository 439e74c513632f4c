import express, { type NextFunction, type Request, type RequestHandler, type Response, type Router } from 'express';
import { DomainError } from '../domain/errors';
import { invalidJsonBody, toClientError } from '../transport/client-error';
import type { RequestContexts } from '../transport/request-context';
import { rejectUnstorableStrings } from '../domain/validation';
import type { Services } from '../domain/services';
import type { Logger } from 'pino';
import { errorBody } from './envelopes';
import { preReadBodyOf } from './fast-lane';
import { Answer, type Envelope, type Limiter, type RouteSpec, type StreamRegistry } from './route';

export const MAX_JSON_BODY = '1mb';
/** Raw uploads (a report file posted to be verified). */
export const MAX_RAW_BODY = '50mb';
const rawParser = express.raw({ limit: MAX_RAW_BODY, type: () => true });

/** Any media type, kept as bytes: `req.body` is a Buffer (empty when nothing was sent). */
function parseRawBody(envelope: Envelope, log: Logger): RequestHandler {
  return (req, res, next) => {
    const preRead = preReadBodyOf(req);
    if (preRead !== undefined) {
      req.body = Buffer.from(preRead, 'utf8');
      return next();
    }
    rawParser(req, res, (err?: any) => {
      if (!err) {
        if (!Buffer.isBuffer(req.body)) req.body = Buffer.alloc(0);
        return next();
      }
      if (err.type === 'entity.too.large') {
        return sendError(res, req, envelope, new DomainError('PAYLOAD_TOO_LARGE', `Request body exceeds ${MAX_RAW_BODY}`, { details: { limit: MAX_RAW_BODY } }), log);
      }
      return sendError(res, req, envelope, new DomainError('VALIDATION_ERROR', 'Request body could not be read', { fields: [{ field: '(body)', message: String(err.message ?? err) }] }), log);
    });
  };
}

export interface MountDeps {
  services: Services;
  contexts: RequestContexts;
  limiters: Record<Limiter, RequestHandler>;
  log: Logger;
  streams: StreamRegistry;
}

const jsonParser = express.json({ limit: MAX_JSON_BODY, strict: false, type: ['application/json', 'application/*+json'] });

/** Sends a DomainError (or anything thrown) in the route's envelope; 5xx are logged with their cause. */
export function sendError(res: Response, req: Request, envelope: Envelope, thrown: unknown, log: Logger) {
  const err = toClientError(thrown);
  if (err.serverSide) log.error({ err: thrown, requestId: req.id, code: err.code }, 'request failed');
  if (res.headersSent) {
    res.end();
    return;
  }
  if (err.headers) res.set(err.headers);
  // A raw route may have set its own Content-Type (audio) before failing; the envelope is JSON.
  res.type('application/json');
  res.status(err.status).json(errorBody(envelope, err.error, req.id));
}

function parseBody(envelope: Envelope, log: Logger): RequestHandler {
  return (req, res, next) => {
    const len = Number(req.headers['content-length'] ?? 0);
    const hasBody = len > 0 || req.headers['transfer-encoding'] !== undefined;
    if (!hasBody) return next();
    if (!req.is(['application/json', 'application/*+json'])) {
      return sendError(res, req, envelope, new DomainError('UNSUPPORTED_MEDIA_TYPE'), log);
    }
    const preRead = preReadBodyOf(req);
    if (preRead !== undefined) {
      // The fast lane read it and handed the request on: parse it as the JSON parser would (strict: false).
      try {
        req.body = JSON.parse(preRead);
      } catch {
        return sendError(res, req, envelope, invalidJsonBody(), log);
      }
      return next();
    }
    jsonParser(req, res, (err?: any) => {
      if (!err) return next();
      if (err.type === 'entity.too.large') {
        return sendError(res, req, envelope, new DomainError('PAYLOAD_TOO_LARGE', `Request body exceeds ${MAX_JSON_BODY}`, { details: { limit: MAX_JSON_BODY } }), log);
      }
      return sendError(res, req, envelope, invalidJsonBody(), log);
    });
  };
}

export const expressPath = (template: string) => template.replace(/\{(\w+)\}/g, ':$1');

/** Turns the route table into express routes; every route shares the same context, limiter and error handling. */
export function mountRoutes(router: Router, routes: RouteSpec[], deps: MountDeps) {
  for (const route of routes) {
    const handler = async (req: Request, res: Response) => {
      try {
        // A `%00` or a lone surrogate could never be stored or name a stored row: a 400 before any work, not a database error.
        rejectUnstorableStrings(req.params);
        rejectUnstorableStrings(req.query);
        rejectUnstorableStrings(req.body);
        const ctx = deps.contexts.ofRequest(req);
        const result = await route.handle({
          ctx,
          services: deps.services,
          body: req.body,
          query: req.query as Record<string, unknown>,
          params: req.params as Record<string, string>,
          req,
          res,
          streams: deps.streams,
        });
        if (route.raw) return;
        if (result instanceof Answer) res.status(result.status).json(result.body);
        else res.status(route.status ?? 200).json(result);
      } catch (err) {
        sendError(res, req, route.envelope, err, deps.log);
      }
    };
    const chain: RequestHandler[] = [deps.limiters[route.limiter]];
    if (route.rawBody) chain.push(parseRawBody(route.envelope, deps.log));
    else if (route.method === 'post' || route.method === 'put' || route.method === 'patch' || route.method === 'delete') {
      chain.push(parseBody(route.envelope, deps.log));
    }
    (router as any)[route.method](expressPath(route.path), ...chain, handler);
  }
}

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      id: string;
      principal?: import('../domain/auth/principal').Principal | null;
    }
  }
}

export type { NextFunction };
