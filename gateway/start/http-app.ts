import { randomUUID } from 'node:crypto';
import http from 'node:http';
import express, { type Express, type Request, type Response } from 'express';
import helmet from 'helmet';
import cors from 'cors';
import proxyaddr from 'proxy-addr';
import type Redis from 'ioredis';
import { DomainError } from '../../domain/errors';
import type { Services } from '../../domain/services';
import { errorBody, envelopeForPath } from '../../rest-adapter/envelopes';
import { sendError } from '../../rest-adapter/mount';
import { captureHeaders, createFastLane } from '../../rest-adapter/fast-lane';
import { ROUTE_TABLE } from '../../rest-adapter/route-table';
import { LANE_QUERIES } from '../../trpc/router';
import { createReadLane } from '../read-lane';
import type { GraphqlLaneDeps } from '../read-lane-graphql';
import { bearerFrom } from '../../transport/credentials';
import { bodyParserFailure, toClientError } from '../../transport/client-error';
import { RequestContexts } from '../../transport/request-context';
import type { GatewayConfig } from '../config';
import type { Logger } from '../logger';
import type { Metrics } from '../metrics';
import { createLimiters } from '../rate-limit';

type Limiters = ReturnType<typeof createLimiters>;

export interface HttpApp {
  app: Express;
  httpServer: http.Server;
  limiters: Limiters;
  contexts: RequestContexts;
  /** What express's `req.ip` answers, for requests express never sees (WebSocket upgrades). */
  clientIpOf(req: http.IncomingMessage): string;
  /** Helmet's headers for HTML documents (the API docs page). */
  documentHeaders: express.RequestHandler;
  /** The read lane's GraphQL branch, told the pipeline once GraphQL is mounted. */
  graphqlLane: { use(deps: GraphqlLaneDeps): void };
}

/** The caller's `X-Request-Id` when it is a sane token, else a fresh one. */
function requestIdOf(req: http.IncomingMessage): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && /^[\w.:-]{1,100}$/.test(given) ? given : randomUUID();
}

/**
 * Two header sets. API answers (JSON, audio, SSE) carry the ones that matter to an API client (OWASP
 * REST Security Cheat Sheet): no framing, no sniffing, HSTS, no referrer, a CSP that loads nothing.
 * Headers that only mean something to an HTML document ride on the docs page alone; on every API
 * answer they were 1.2 KB, a third of a cached answer's cost (docs/decisions.md).
 */
const securityHeaders = () =>
  helmet({
    contentSecurityPolicy: { useDefaults: false, directives: { 'default-src': ["'none'"], 'frame-ancestors': ["'none'"] } },
    crossOriginResourcePolicy: { policy: 'cross-origin' },
    xFrameOptions: { action: 'deny' },
    crossOriginOpenerPolicy: false,
    originAgentCluster: false,
    xDnsPrefetchControl: false,
    xDownloadOptions: false,
    xPermittedCrossDomainPolicies: false,
    xXssProtection: false,
  });
const documentHeaders = () =>
  helmet({
    // The docs page loads its own script and styles.
    contentSecurityPolicy: { directives: { 'script-src': ["'self'"], 'style-src': ["'self'", "'unsafe-inline'"], 'img-src': ["'self'", 'data:'] } },
    crossOriginResourcePolicy: { policy: 'cross-origin' },
  });
const EXPOSED_HEADERS = ['X-Request-Id', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'Retry-After', 'ETag', 'Content-Range', 'X-Provider', 'X-Cached-Tier', 'RateLimit-Policy', 'RateLimit-Characters-Limit', 'RateLimit-Characters-Remaining', 'RateLimit-Characters-Reset'];

/**
 * The express app behind its HTTP server and the REST fast lane, with what every request gets first:
 * an id, security and CORS headers, metrics, and the principal of its bearer key.
 */
export async function createHttpApp(config: GatewayConfig, deps: { services: Services; rootEm: any; redis?: Redis; log: Logger; metrics: Metrics }): Promise<HttpApp> {
  const { services, log, metrics } = deps;
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', config.trustProxy);
  app.set('etag', false);
  app.set('query parser', 'simple');
  // Limits and the security/CORS middlewares are built first: the fast lane shares them with express.
  const limiters = createLimiters({ ttsPerMinute: config.ttsRateLimitPerMinute, redis: deps.redis });
  const security = securityHeaders();
  const corsHeaders = cors({ origin: config.corsOrigins ?? (config.production ? false : true), exposedHeaders: EXPOSED_HEADERS });
  const observe = (route: string, method: string, status: number, seconds: number) => {
    metrics.httpRequests.inc({ route, method, status: String(status) });
    metrics.httpDuration.observe({ route, method }, seconds);
  };
  const clientIpOf = (req: http.IncomingMessage) => proxyaddr(req as any, app.get('trust proxy fn'));
  const contexts = new RequestContexts(deps.rootEm);
  const answered = (lane: string) => (req: http.IncomingMessage, route: string, status: number, requestId: string, startedNs: bigint) => {
    const seconds = Number(process.hrtime.bigint() - startedNs) / 1e9;
    observe(route, req.method!, status, seconds);
    if (log.isLevelEnabled('debug')) log.debug({ requestId, method: req.method, path: route, status, ms: Math.round(seconds * 1000), lane }, 'request');
  };
  const authenticate = (secret: string) => services.auth.authenticate(secret);
  const postHeaders = await captureHeaders([security, corsHeaders]);
  const fastLane = createFastLane({
    routes: ROUTE_TABLE,
    services,
    contexts,
    ttsCounter: limiters.ttsCounter,
    staticHeaders: postHeaders,
    requestIdOf,
    clientIpOf,
    authenticate,
    answered: answered('fast'),
  });
  const readLane = createReadLane({
    routes: ROUTE_TABLE,
    procedures: LANE_QUERIES,
    services,
    contexts,
    planCounter: limiters.planCounter,
    staticHeaders: await captureHeaders([security, corsHeaders], 'GET'),
    postHeaders,
    requestIdOf,
    clientIpOf,
    authenticate,
    answered: answered('read'),
  });
  const httpServer = http.createServer(fastLane(readLane(app)));
  httpServer.keepAliveTimeout = 65_000;
  httpServer.headersTimeout = 66_000;
  httpServer.requestTimeout = 120_000;

  app.use((req, res, next) => {
    req.id = requestIdOf(req);
    res.setHeader('X-Request-Id', req.id);
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      // GraphQL and tRPC are mounted with app.use (no route): they name the operation in res.locals.
      const route = req.route?.path ? `${req.baseUrl}${req.route.path}` : ((res.locals.route as string | undefined) ?? 'unmatched');
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      observe(route, req.method, res.statusCode, seconds);
      // The path only: a query string may carry `access_token`.
      log.debug({ requestId: req.id, method: req.method, path: req.originalUrl.split('?')[0], status: res.statusCode, ms: Math.round(seconds * 1000) }, 'request');
    });
    next();
  });
  app.use(security);
  app.use(corsHeaders);
  app.use(async (req, res, next) => {
    const secret = bearerFrom(req.headers.authorization);
    if (!secret) return next();
    try {
      req.principal = await services.auth.authenticate(secret);
      next();
    } catch (err) {
      sendError(res, req, envelopeForPath(req.path), err, log);
    }
  });
  return { app, httpServer, limiters, contexts, clientIpOf, documentHeaders: documentHeaders(), graphqlLane: readLane.graphql };
}

/** Anything no route answered: a 404, and errors, in the envelope of the prefix they were meant for. */
export function mountFallbacks(app: Express, log: Logger) {
  app.use((req: Request, res: Response) => {
    const err = new DomainError('NOT_FOUND', `No route for ${req.method} ${req.path.slice(0, 200)}`, { details: { method: req.method, path: req.path.slice(0, 200) } });
    res.status(404).json(errorBody(envelopeForPath(req.path), err, req.id));
  });
  app.use((err: any, req: Request, res: Response, _next: express.NextFunction) => {
    // GraphQL clients read `errors[]`, also when the body never reached Apollo (not JSON, too large).
    const failure = bodyParserFailure(err);
    if (req.path.startsWith('/graphql') && !res.headersSent) {
      const e = toClientError(failure);
      if (e.serverSide) log.error({ err, requestId: req.id }, 'graphql request failed');
      return res.status(e.status).json({ errors: [{ message: e.message, extensions: { code: e.code, status: e.status } }] });
    }
    sendError(res, req, envelopeForPath(req.path), failure, log);
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
