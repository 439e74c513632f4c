import http from 'node:http';
import express, { type Express, type Request, type Response } from 'express';
import helmet from 'helmet';
import proxyaddr from 'proxy-addr';
import type Redis from 'ioredis';
import type { EntityManager } from '@mikro-orm/postgresql';
import { DomainError } from '../../domain/errors';
import type { Services } from '../../domain/services';
import { envelopeForPath } from '../../rest-adapter/envelopes';
import { sendError } from '../../rest-adapter/mount';
import { bodyParserFailure, toClientError } from '../../transport/client-error';
import { RequestContexts } from '../../transport/request-context';
import type { GatewayConfig } from '../config';
import { createFront, createHeaderPolicy, type Front } from '../front';
import type { Logger } from '../logger';
import type { Metrics } from '../metrics';
import { createLimiters } from '../rate-limit';

type Limiters = ReturnType<typeof createLimiters>;

export interface HttpApp {
  app: Express;
  httpServer: http.Server;
  limiters: Limiters;
  contexts: RequestContexts;
  front: Front;
  /** What express's `req.ip` answers, for requests express never sees (WebSocket upgrades). */
  clientIpOf(req: http.IncomingMessage, headers?: http.IncomingHttpHeaders): string;
  /** Helmet's headers for HTML documents (the API docs page). */
  documentHeaders: express.RequestHandler;
}

/** The docs page loads its own script and styles: an HTML document's policy, not an API answer's. */
const documentHeaders = () =>
  helmet({
    contentSecurityPolicy: { directives: { 'script-src': ["'self'"], 'style-src': ["'self'", "'unsafe-inline'"], 'img-src': ["'self'", 'data:'] } },
    crossOriginResourcePolicy: { policy: 'cross-origin' },
  });

/**
 * The express app behind its HTTP server, whose listener is the request front (gateway/front): it
 * gives every request its id, principal, limits, headers and body before express sees it.
 */
export async function createHttpApp(
  config: GatewayConfig,
  deps: { services: Services; rootEm: EntityManager; redis?: Redis; log: Logger; metrics: Metrics },
): Promise<HttpApp> {
  const { services, log, metrics } = deps;
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', config.trustProxy);
  app.set('etag', false);
  app.set('query parser', 'simple');
  const limiters = createLimiters({ ttsPerMinute: config.ttsRateLimitPerMinute, redis: deps.redis });
  // Without X-Forwarded-For the address is the socket's whatever the trust setting (proxy-addr's own answer).
  // `headers`: the request's, when the caller has read them already (a getter builds them).
  const clientIpOf = (req: http.IncomingMessage, headers: http.IncomingHttpHeaders = req.headers) =>
    headers['x-forwarded-for'] === undefined ? (req.socket.remoteAddress as string) : proxyaddr(req as never, app.get('trust proxy fn'));
  const contexts = new RequestContexts(deps.rootEm);
  const front = createFront({
    services,
    contexts,
    headers: createHeaderPolicy({ origins: config.corsOrigins, production: config.production }),
    ttsCounter: limiters.ttsCounter,
    planCounter: limiters.planCounter,
    budgets: limiters.budgets,
    clientIpOf,
    log,
    metrics,
  });
  const httpServer = http.createServer(front.listener(app));
  httpServer.keepAliveTimeout = 65_000;
  httpServer.headersTimeout = 66_000;
  httpServer.requestTimeout = 120_000;
  return { app, httpServer, limiters, contexts, front, clientIpOf, documentHeaders: documentHeaders() };
}

/** Anything no route answered: a 404, and errors, in the envelope of the prefix they were meant for. */
export function mountFallbacks(app: Express, log: Logger) {
  app.use((req: Request, res: Response) => {
    const err = new DomainError('NOT_FOUND', `No route for ${req.method} ${req.path.slice(0, 200)}`, {
      details: { method: req.method, path: req.path.slice(0, 200) },
    });
    sendError(res, req.id, envelopeForPath(req.path), err, log);
  });
  app.use((err: unknown, req: Request, res: Response, _next: express.NextFunction) => {
    // GraphQL clients read `errors[]`, also when the body never reached Apollo (not JSON, too large).
    const failure = bodyParserFailure(err);
    if (req.path.startsWith('/graphql') && !res.headersSent) {
      const e = toClientError(failure);
      if (e.serverSide) log.error({ err, requestId: req.id }, 'graphql request failed');
      return res.status(e.status).json({ errors: [{ message: e.message, extensions: { code: e.code, status: e.status } }] });
    }
    sendError(res, req.id, envelopeForPath(req.path), failure, log);
  });
}

/** Listens on the configured address; the URL clients reach it at. */
export async function listen(httpServer: http.Server, config: GatewayConfig): Promise<{ url: string; port: number }> {
  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(config.port, config.host, () => resolve());
  });
  const address = httpServer.address() as import('node:net').AddressInfo;
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  return { url: `http://${host}:${address.port}`, port: address.port };
}
