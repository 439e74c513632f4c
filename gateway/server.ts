import { randomUUID } from 'node:crypto';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { Duplex } from 'node:stream';
import express, { type Request, type Response } from 'express';
import { graphiqlRouter } from './graphiql';
import helmet from 'helmet';
import cors from 'cors';
import proxyaddr from 'proxy-addr';
import { expressMiddleware } from '@as-integrations/express5';
import * as trpcExpress from '@trpc/server/adapters/express';
import { WebSocketServer } from 'ws';
import { useServer } from 'graphql-ws/use/ws';
import Redis from 'ioredis';
import { getOperationAST, type ExecutionResult } from 'graphql';
import type { EmbeddedPostgres } from '../domain/database/embedded';
import { openDatabase, type Database } from '../domain/database/orm';
import { DatabaseGuard } from '../domain/database/guard';
import { DomainError } from '../domain/errors';
import { InProcessEventBus, type EventBus } from '../domain/events/bus';
import { createServices, type Services } from '../domain/services';
import { DatabaseBlobStore, FsBlobStore, type BlobStore } from '../domain/tts/cache/blob-store';
import { PgAdvisoryLocks } from '../domain/database/advisory-locks';
import { generationLockOn } from '../domain/tts/generation';
import { createProviders } from '../domain/tts/providers/registry';
import { AudioWorkerPool } from '../domain/tts/audio-workers';
import { errorBody, envelopeForPath } from '../rest-adapter/envelopes';
import { mountRoutes, sendError } from '../rest-adapter/mount';
import { captureHeaders, createFastLane } from '../rest-adapter/fast-lane';
import { buildOpenApi, docsPage, DOCS_INIT_JS } from '../rest-adapter/openapi';
import { buildAsyncApi } from '../rest-adapter/asyncapi';
import { ROUTE_TABLE } from '../rest-adapter/route-table';
import { restLinks } from '../rest-adapter/links';
import type { StreamRegistry } from '../rest-adapter/route';
import type { GqlContext } from '../resolvers/context';
import { appRouter } from '../trpc/router';
import { READ_MODEL_QUERIES, ttsRootFields } from '../resolvers';
import { configuredSecrets, type GatewayConfig } from './config';
import { buildGraphqlSchema, createApollo, formatWsResult, graphqlWsOnSubscribe, wsError } from './graphql';
import { accessTokenOf, bearerFrom, keyFromConnectionParams } from './kit/credentials';
import { bodyParserFailure, toClientError } from './kit/client-error';
import { RequestContexts } from './kit/request-context';
import { createLogger, type Logger } from './logger';
import { createMetrics, graphqlRouteLabel, trpcRouteLabel, type Metrics } from './metrics';
import { KNOWN_OPERATIONS } from '../schema/generated/operations';
import { createLimiters } from './rate-limit';
import { RedisEventBus } from './redis-bus';
import { mountLiveChannels, type UpgradeHandler } from './live';
import { mountConsole } from './console';

export interface Gateway {
  url: string;
  port: number;
  services: Services;
  db: Database;
  log: Logger;
  metrics: Metrics;
  httpServer: http.Server;
  /** The admin secret generated on first start (null when configured or already generated). */
  bootstrapAdminKey: string | null;
  /** Threads for mock synthesis and audio encoding (none with AUDIO_WORKERS=0). */
  audioWorkers?: AudioWorkerPool;
  stop(): Promise<void>;
}

/** Calls in one tRPC batch; each is charged as one request (a larger batch is a 400). */
const TRPC_MAX_BATCH = 100;


/** The caller's `X-Request-Id` when it is a sane token, else a fresh one. */
function requestIdOf(req: http.IncomingMessage): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && /^[\w.:-]{1,100}$/.test(given) ? given : randomUUID();
}

/**
 * Only the directory of swagger-ui-dist's static files: importing the package itself evaluates its
 * 1.5 MB browser bundle in this process (≈0.4 s of start-up and memory for nothing).
 */
const SWAGGER_UI_DIR = path.dirname(require.resolve('swagger-ui-dist/package.json'));


/** Starts one gateway instance: database, domain services, the three transports and live channels. */
export interface CreateGatewayOptions {
  logger?: Logger;
  /** The embedded database, already starting (gateway/main.ts starts it before loading this module). */
  embeddedDatabase?: Promise<EmbeddedPostgres>;
}

export async function createGateway(config: GatewayConfig, opts: CreateGatewayOptions = {}): Promise<Gateway> {
  const log = opts.logger ?? createLogger(config.logLevel, undefined, configuredSecrets(config));
  const metrics = createMetrics();
  const instanceId = `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  // Shared PostgreSQL means several instances may start together: one-time start-up work
  // (migrations, bootstrap admin, baselines) runs under one cluster-wide lock. PGlite is one process.
  const locks = config.databaseUrl
    ? new PgAdvisoryLocks(config.databaseUrl, { onWarning: (message, err) => log.warn({ err }, message) })
    : undefined;
  const onceAcrossInstances = <T>(fn: () => Promise<T>) => (locks ? locks.withLock('gateway.startup', fn) : fn());
  const db = await onceAcrossInstances(() =>
    openDatabase({
      databaseUrl: config.databaseUrl,
      dataDir: config.dataDir,
      poolSize: config.databasePoolSize,
      embedded: opts.embeddedDatabase,
      // The pool's messages (a dropped connection, say) as log lines; the outage itself answers 503.
      onDriverMessage: (level, message) => log[level === 'deprecate' ? 'warn' : level]({ component: 'database-driver' }, String(message)),
    }),
  );
  const rootEm = db.orm.em as any;
  // A hung database answers 503 within about two seconds, and the gateway closes again by itself.
  const dbGuard = new DatabaseGuard(rootEm.getConnection().getKnex().client, {
    hangMs: config.databaseHangMs,
    onTrip: (reason) => log.error({ component: 'database-guard', reason }, 'database unavailable: answering 503 until it responds'),
    onRecover: (downMs) => log.warn({ component: 'database-guard', downMs }, 'database answers again'),
  });

  const redis = config.redisUrl ? new Redis(config.redisUrl, { maxRetriesPerRequest: 2, lazyConnect: false }) : undefined;
  const bus: EventBus = config.redisUrl ? new RedisEventBus(config.redisUrl, log) : new InProcessEventBus();
  const blobs: BlobStore = config.blobStore === 'database' ? new DatabaseBlobStore(rootEm) : new FsBlobStore(path.join(config.dataDir, 'audio'));

  const audioWorkers = config.audioWorkers.size > 0 ? new AudioWorkerPool(config.audioWorkers) : undefined;
  let services!: Services;
  services = createServices({
    rootEm,
    bus,
    blobs,
    providers: createProviders({
      mockLatencyMs: config.mockLatencyMs,
      audioWorkers,
      ...config.providers,
      // Clients get the code, status and reason of a vendor failure; its text (redacted) only the log.
      reporting: { secrets: configuredSecrets(config), onFailure: (upstream) => log.warn({ upstream }, 'vendor call failed') },
    }),
    links: restLinks(),
    adminApiKey: config.adminApiKey,
    ttsApiKey: config.ttsApiKey,
    prices: config.prices,
    hotCacheBytes: config.hotCacheBytes,
    readModelCacheBytes: config.readModelCacheBytes,
    environment: config.production ? 'production' : 'development',
    webhookAllowPrivateNetworks: config.webhookAllowPrivateNetworks,
    organisationName: config.organisationName,
    speechLimits: config.speechLimits,
    audioWorkers,
    instanceId,
    onBackgroundError: (component, err) => log.warn({ err, component }, 'background work failed'),
    principalRecheckMs: config.principalRecheckMs,
    generationLock: locks ? generationLockOn(locks) : undefined,
    ttsObserver: metrics.ttsObserver,
    onCacheInvalidated: (hashes) => void bus.publish('tts.cache', { id: instanceId, type: 'cache.invalidated', data: { hashes, from: instanceId }, createdAt: new Date().toISOString() }),
  });
  metrics.readCircuitStatesFrom(() => services.tts.catalogue.circuitStates());
  bus.subscribe('tts.cache', (e) => {
    if (e.data.from !== instanceId) services.tts.cache.invalidate(e.data.hashes as string[] | 'all', false);
  });
  const bootstrapAdminKey = await onceAcrossInstances(() => services.auth.ensureBootstrapAdmin());

  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', config.trustProxy);
  app.set('etag', false);
  app.set('query parser', 'simple');
  // Limits and the security/CORS middlewares are built first: the fast lane shares them with express.
  const limiters = createLimiters({ ttsPerMinute: config.ttsRateLimitPerMinute, redis });
  // Two header sets. API answers (JSON, audio, SSE) carry the ones that matter to an API client
  // (OWASP REST Security Cheat Sheet): no framing, no sniffing, HSTS, no referrer, a CSP that loads
  // nothing. Headers that only mean something to an HTML document ride on the docs page alone; on
  // every API answer they were 1.2 KB, a third of a cached answer's cost (docs/decisions.md).
  const securityHeaders = helmet({
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
  const documentHeaders = helmet({
    // The docs page loads its own script and styles.
    contentSecurityPolicy: { directives: { 'script-src': ["'self'"], 'style-src': ["'self'", "'unsafe-inline'"], 'img-src': ["'self'", 'data:'] } },
    crossOriginResourcePolicy: { policy: 'cross-origin' },
  });
  const corsHeaders = cors({ origin: config.corsOrigins ?? (config.production ? false : true), exposedHeaders: ['X-Request-Id', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'Retry-After', 'ETag', 'Content-Range', 'X-Provider', 'X-Cached-Tier', 'RateLimit-Policy', 'RateLimit-Characters-Limit', 'RateLimit-Characters-Remaining', 'RateLimit-Characters-Reset'] });
  const observe = (route: string, method: string, status: number, seconds: number) => {
    metrics.httpRequests.inc({ route, method, status: String(status) });
    metrics.httpDuration.observe({ route, method }, seconds);
  };
  const clientIpOf = (req: http.IncomingMessage) => proxyaddr(req as any, app.get('trust proxy fn')); // what express's req.ip answers
  const contexts = new RequestContexts(rootEm);
  const fastLane = createFastLane({
    routes: ROUTE_TABLE,
    services,
    contexts,
    ttsCounter: limiters.ttsCounter,
    staticHeaders: await captureHeaders([securityHeaders, corsHeaders]),
    requestIdOf,
    clientIpOf,
    authenticate: (secret) => services.auth.authenticate(secret),
    answered: (req, route, status, requestId, startedNs) => {
      const seconds = Number(process.hrtime.bigint() - startedNs) / 1e9;
      observe(route, req.method!, status, seconds);
      if (log.isLevelEnabled('debug')) log.debug({ requestId, method: req.method, path: route, status, ms: Math.round(seconds * 1000), lane: 'fast' }, 'request');
    },
  });
  const httpServer = http.createServer(fastLane(app));
  httpServer.keepAliveTimeout = 65_000;
  httpServer.headersTimeout = 66_000;
  httpServer.requestTimeout = 120_000;

  // --- per-request basics: id, security headers, CORS, metrics, principal ---
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
  app.use(securityHeaders);
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

  // --- REST: every documented path from the one route table ---
  const streams = new Set<(reason: string) => void>();
  const streamRegistry: StreamRegistry = {
    add(close) {
      streams.add(close);
      return () => streams.delete(close);
    },
  };
  const restRouter = express.Router();
  mountRoutes(restRouter, ROUTE_TABLE, { services, contexts, limiters, log, streams: streamRegistry });
  app.use(restRouter);

  const openapi = buildOpenApi(ROUTE_TABLE);
  app.get('/api/openapi.json', (_req, res) => {
    res.json(openapi);
  });
  const asyncapi = buildAsyncApi();
  app.get('/api/asyncapi.json', (_req, res) => {
    res.json(asyncapi);
  });
  app.use('/api/docs', documentHeaders);
  app.get('/api/docs', (_req, res) => {
    res.type('html').send(docsPage());
  });
  app.get('/api/docs/init.js', (_req, res) => {
    res.type('application/javascript').send(DOCS_INIT_JS);
  });
  app.use('/api/docs/assets', express.static(SWAGGER_UI_DIR, { index: false, maxAge: '1d' }));
  const consoleServed = mountConsole(app);
  app.get('/metrics', async (_req, res) => {
    res.set('Content-Type', metrics.registry.contentType).send(await metrics.registry.metrics());
  });

  // --- GraphQL over HTTP ---
  const knownOperations = new Set(KNOWN_OPERATIONS);
  const schema = await buildGraphqlSchema(bus);
  const charging = { budgets: limiters.budgets, ttsFields: ttsRootFields() };
  const apollo = await createApollo({
    schema,
    httpServer,
    production: config.production,
    log,
    responseCache: { readModel: services.readModel, roots: READ_MODEL_QUERIES },
    charging,
    maxResultBytes: config.graphqlMaxResultBytes,
  });
  // GraphiQL for browsers (development only, like introspection), before the GraphQL server.
  if (!config.production) app.use(graphiqlRouter());
  // Budgets are charged per root field (GraphQL) and per call (tRPC), not per HTTP request.
  app.use(
    '/graphql',
    express.json({ limit: '1mb' }),
    (req, res, next) => {
      // Until the document is parsed (it may not parse): the name the request gives, if any.
      res.locals.route = graphqlRouteLabel(knownOperations, req.body?.operationName ?? req.query.operationName);
      next();
    },
    expressMiddleware(apollo, {
      context: async ({ req, res }): Promise<GqlContext> => ({
        services,
        domain: contexts.ofRequest(req),
        onOperation: (name) => {
          res.locals.route = graphqlRouteLabel(knownOperations, name);
        },
      }),
    }),
  );

  // --- tRPC ---
  const trpcProcedures = new Set(Object.keys(appRouter._def.procedures));
  app.use(
    '/trpc',
    (req, res, next) => {
      res.locals.route = trpcRouteLabel(trpcProcedures, req.path);
      next();
    },
    trpcExpress.createExpressMiddleware({
      router: appRouter,
      maxBodySize: 1024 * 1024,
      maxBatchSize: TRPC_MAX_BATCH,
      // A browser's EventSource cannot send headers: subscriptions may carry the key as tRPC's
      // `connectionParams` (httpSubscriptionLink) or `?access_token=` instead.
      createContext: async ({ req, info }) => {
        let principal = req.principal ?? null;
        if (!principal && !req.headers.authorization && info.type === 'subscription') {
          const secret = keyFromConnectionParams(info.connectionParams) ?? accessTokenOf(req.originalUrl);
          if (secret) principal = await services.auth.authenticate(secret);
        }
        return { services, domain: contexts.ofRequest(req, principal), budgets: limiters.budgets };
      },
      // A refusal that says when to come back (database down, over a budget) sets Retry-After.
      responseMeta: ({ errors }) => {
        const retryAfter = errors.map((e) => (e.cause instanceof DomainError ? e.cause.headers?.['Retry-After'] : undefined)).find(Boolean);
        return retryAfter ? { headers: { 'Retry-After': retryAfter } } : {};
      },
      onError: ({ error }) => {
        if (error.code === 'INTERNAL_SERVER_ERROR' && !(error.cause instanceof DomainError)) log.error({ err: error.cause ?? error }, 'trpc procedure failed');
      },
    }),
  );

  // --- anything else: a 404 in the envelope of the prefix it was meant for ---
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

  // --- WebSockets: graphql-ws on /graphql, the dashboard channel, routed by path on upgrade ---
  const upgrades = new Map<string, UpgradeHandler>();
  const wsResult = formatWsResult(log, config.graphqlMaxResultBytes);
  const gqlWss = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 });
  const wsOnSubscribe = graphqlWsOnSubscribe(schema, config.production, { ...charging, callerOf: (ctx: any) => ({ principal: ctx.extra.principal ?? null, ip: clientIpOf(ctx.extra.request) }) });
  const gqlWsServer = useServer<Record<string, unknown>, { principal?: any }>(
    {
      schema,
      // The same limits and budgets as over HTTP: each operation's root fields are charged.
      // Each operation re-checks the connection's key (as each HTTP request does): a key revoked or
      // expired since the socket opened gets AUTHENTICATION_ERROR, not the rights it had.
      onSubscribe: async (ctx, id, payload) => {
        const secret = (ctx.extra as any).secret as string | undefined;
        if (secret) {
          try {
            (ctx.extra as any).principal = await services.auth.authenticate(secret);
          } catch (err) {
            // The key could not be checked (database unavailable): this operation is refused, the connection stays.
            return [wsError(err)];
          }
        }
        return wsOnSubscribe(ctx, id, payload);
      },
      // Subscription events are small and many (one per subscriber): only query/mutation answers are measured.
      onNext: (_ctx, _id, _payload, args, result) => wsResult(result as ExecutionResult, getOperationAST(args.document, args.operationName)?.operation !== 'subscription'),
      context: async (ctx) => ({
        services,
        domain: contexts.of({ principal: (ctx.extra as any).principal, ip: clientIpOf(ctx.extra.request) }),
      }),
      onConnect: async (ctx) => {
        const fromParams = typeof ctx.connectionParams?.authorization === 'string' ? bearerFrom(ctx.connectionParams.authorization as string) ?? (ctx.connectionParams.authorization as string) : undefined;
        const secret = fromParams ?? bearerFrom(ctx.extra.request.headers.authorization) ?? accessTokenOf(ctx.extra.request.url);
        (ctx.extra as any).principal = secret ? await services.auth.authenticate(secret) : null;
        (ctx.extra as any).secret = secret;
        if (secret && !(ctx.extra as any).principal) return false; // a wrong key is refused at once
        return true;
      },
    },
    gqlWss,
  );
  upgrades.set('/graphql', (req, socket, head) => gqlWss.handleUpgrade(req, socket, head, (ws) => gqlWss.emit('connection', ws, req)));
  const live = mountLiveChannels({ upgrades, services, log, metrics });
  httpServer.on('upgrade', (req, socket: Duplex, head) => {
    const pathname = (req.url ?? '/').split('?')[0];
    const handler = upgrades.get(pathname);
    log.debug({ path: pathname, known: !!handler }, 'websocket upgrade');
    if (!handler) {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    handler(req, socket, head);
  });

  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(config.port, config.host, () => resolve());
  });
  const address = httpServer.address() as import('node:net').AddressInfo;
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  const url = `http://${host}:${address.port}`;

  await onceAcrossInstances(() => services.start());
  // Once the server answers: a thread started now is ready before a generation needs its first audio.
  audioWorkers?.warm().catch((err) => log.warn({ err }, 'audio worker warm-up failed (threads start on demand)'));
  log.info({ url, database: db.embedded ? 'embedded' : 'postgresql', events: config.redisUrl ? 'redis' : 'in-process', console: consoleServed }, 'gateway listening');
  if (!consoleServed) log.warn('web console not built (console/dist missing): run `npm run console:build` to serve it at /');

  /** Each shutdown step is logged at debug level, so a slow one can be found. */
  const step = async (name: string, fn: () => unknown) => {
    const t = Date.now();
    try {
      await fn();
    } catch (err) {
      log.warn({ err, step: name }, 'shutdown step failed');
    }
    log.debug({ step: name, ms: Date.now() - t }, 'shutdown step done');
  };
  let stopping: Promise<void> | null = null;
  const stop = () =>
    (stopping ??= (async () => {
      log.info('gateway stopping');
      for (const close of [...streams]) close('The server is shutting down; retry the request');
      await step('live channels', () => live.close());
      await step('graphql-ws', async () => {
        await gqlWsServer.dispose();
        gqlWss.close();
      });
      await step('http drain', () => apollo.stop()); // in-flight requests finish
      await step('http close', () => new Promise<void>((resolve) => httpServer.close(() => resolve())));
      await step('services', () => services.close());
      await step('audio workers', async () => audioWorkers?.close());
      await step('locks', () => locks?.close());
      await step('event bus', () => bus.close());
      redis?.disconnect();
      dbGuard.close();
      await step('database', () => db.close());
      log.info('gateway stopped');
    })());

  return { url, port: address.port, services, db, log, metrics, httpServer, bootstrapAdminKey, audioWorkers, stop };
}
