import type { ServerResponse } from 'node:http';
import express, { type NextFunction, type Request, type RequestHandler, type Response, type Router } from 'express';
import type { Logger } from 'pino';
import { DomainError } from '../domain/errors';
import type { Services } from '../domain/services';
import { rejectUnstorableStrings } from '../domain/validation';
import { toClientError } from '../transport/client-error';
import type { RequestContexts } from '../transport/request-context';
import { errorBody } from './envelopes';
import { Answer, type Envelope, type RouteSpec, type StreamRegistry } from './route';

/** Raw uploads (a report file posted to be verified). */
export const MAX_RAW_BODY = '50mb';
const rawParser = express.raw({ limit: MAX_RAW_BODY, type: () => true });

/** Any media type, kept as bytes: `req.body` is a Buffer (empty when nothing was sent). */
function parseRawBody(envelope: Envelope, log: Logger): RequestHandler {
  return (req, res, next) => {
    rawParser(req, res, (err?: { type?: string; message?: string }) => {
      if (!err) {
        if (!Buffer.isBuffer(req.body)) req.body = Buffer.alloc(0);
        return next();
      }
      if (err.type === 'entity.too.large') {
        return sendError(
          res,
          req.id,
          envelope,
          new DomainError('PAYLOAD_TOO_LARGE', `Request body exceeds ${MAX_RAW_BODY}`, { details: { limit: MAX_RAW_BODY } }),
          log,
        );
      }
      return sendError(
        res,
        req.id,
        envelope,
        new DomainError('VALIDATION_ERROR', 'Request body could not be read', { fields: [{ field: '(body)', message: String(err.message ?? err) }] }),
        log,
      );
    });
  };
}

export interface MountDeps {
  services: Services;
  contexts: RequestContexts;
  log: Logger;
  streams: StreamRegistry;
}

/** Sends a DomainError (or anything thrown) in an envelope, on any node response; 5xx are logged with their cause. */
export function sendError(res: ServerResponse, requestId: string, envelope: Envelope, thrown: unknown, log: Logger) {
  const err = toClientError(thrown);
  if (err.serverSide) log.error({ err: thrown, requestId, code: err.code }, 'request failed');
  if (res.headersSent) {
    res.end();
    return;
  }
  const headers = err.headers;
  if (headers) for (const name in headers) res.setHeader(name, headers[name]);
  const body = JSON.stringify(errorBody(envelope, err.error, requestId));
  res.statusCode = err.status;
  // A raw route may have set its own Content-Type (audio) before failing; the envelope is JSON.
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
}

export const expressPath = (template: string) => template.replace(/\{(\w+)\}/g, ':$1');

/**
 * Turns the route table into express routes; every route shares the same context and error
 * handling. The host reads JSON bodies, authenticates and charges each route's limiter before
 * express runs (gateway/front): a route finds `req.body` parsed and `req.principal` set.
 */
export function mountRoutes(router: Router, routes: RouteSpec[], deps: MountDeps) {
  for (const route of routes) {
    const handler = async (req: Request, res: Response) => {
      try {
        // A `%00` or a lone surrogate could never be stored or name a stored row: a 400 before any work, not a database error.
        rejectUnstorableStrings(req.params);
        rejectUnstorableStrings(req.query);
        if (!route.rawBody) rejectUnstorableStrings(req.body);
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
        sendError(res, req.id, route.envelope, err, deps.log);
      }
    };
    const chain: RequestHandler[] = route.rawBody ? [parseRawBody(route.envelope, deps.log)] : [];
    router[route.method](expressPath(route.path), ...chain, handler);
  }
}

declare global {
  namespace Express {
    interface Request {
      id: string;
      principal?: import('../domain/auth/principal').Principal | null;
    }
  }
}

export type { NextFunction };
