import fs from 'node:fs';
import path from 'node:path';
import type Redis from 'ioredis';
import express from 'express';
import { expressMiddleware } from '@as-integrations/express5';
import * as trpcExpress from '@trpc/server/adapters/express';
import { DomainError } from '../../domain/errors';
import type { EventBus } from '../../domain/events/bus';
import type { Services } from '../../domain/services';
import { mountRoutes } from '../../rest-adapter/mount';
import { buildOpenApi, docsPage, DOCS_INIT_JS } from '../../rest-adapter/openapi';
import { buildAsyncApi, serverAsked } from '../../rest-adapter/asyncapi';
import { ROUTE_TABLE } from '../../rest-adapter/route-table';
import type { StreamRegistry } from '../../rest-adapter/route';
import type { GqlContext } from '../../resolvers/context';
import { appRouter } from '../../trpc/router';
import { READ_MODEL_QUERIES, ttsRootFields } from '../../resolvers';
import { KNOWN_OPERATIONS } from '../../schema/generated/operations';
import { accessTokenOf, keyFromConnectionParams } from '../../transport/credentials';
import type { GatewayConfig } from '../config';
import { mountConsole } from '../console';
import { graphiqlRouter } from '../graphiql';
import { buildGraphqlSchema, createApollo, DEFAULT_MAX_RESULT_BYTES, graphqlPipeline } from '../graphql';
import { documentNestingGuard } from '../graphql/parts/input-depth';
import { persistedQueryGuard, persistedQueryStore } from '../graphql/persisted-queries';
import type { Logger } from '../logger';
import { graphqlRouteLabel, trpcRouteLabel, type Metrics } from '../metrics';
import type { HttpApp } from './http-app';
import { EARLIER_ERROR, plainQuery } from './trpc-plain-query';

/** Calls in one tRPC batch; each is charged as one request (a larger batch is a 400). */
export const TRPC_MAX_BATCH = 100;

/**
 * Only the directory of swagger-ui-dist's static files: importing the package itself evaluates its
 * 1.5 MB browser bundle in this process (≈0.4 s of start-up and memory for nothing).
 */
/** clients/postman/ (written by `npm run codegen`): looked up from gateway/start/ under ts-jest or dist/gateway/start/ when built. */
export const POSTMAN_COLLECTION = 'clients/postman/speech-compliance-gateway.postman_collection.json';
function findPostmanCollection(from = __dirname): Buffer | null {
  for (let dir = from, i = 0; i < 5; i++, dir = path.dirname(dir)) {
    const candidate = path.join(dir, POSTMAN_COLLECTION);
    if (fs.existsSync(candidate)) return fs.readFileSync(candidate);
  }
  return null;
}

const SWAGGER_UI_DIR = path.dirname(require.resolve('swagger-ui-dist/package.json'));

/** The prefixes of every path in the route table (tests/unit/rest-prefix.test.ts holds the table to it). */
export const REST_PREFIX = /^\/(?:api|v1)\//i;

/**
 * Every documented REST path from the one route table, its OpenAPI and AsyncAPI documents and docs
 * page, the web console and /metrics. Open response streams are closed by `closeStreams` at shutdown.
 */
export function mountRest(http: HttpApp, deps: { services: Services; log: Logger; metrics: Metrics }) {
  const { app } = http;
  const streams = new Set<(reason: string) => void>();
  const streamRegistry: StreamRegistry = {
    add(close) {
      streams.add(close);
      return () => streams.delete(close);
    },
  };
  const restRouter = express.Router();
  mountRoutes(restRouter, ROUTE_TABLE, { services: deps.services, contexts: http.contexts, log: deps.log, streams: streamRegistry });
  // Only REST's prefixes enter the route table's router: every other request (GraphQL, tRPC, the
  // console) was tried against each of its routes' patterns in turn (~30 µs of a computed GraphQL query).
  app.use((req, res, next) => (REST_PREFIX.test(req.path) ? restRouter(req, res, next) : next()));

  const openapi = buildOpenApi(ROUTE_TABLE);
  app.get('/api/openapi.json', (_req, res) => {
    res.json(openapi);
  });
  app.get('/api/asyncapi.json', (req, res) => {
    res.json(buildAsyncApi(serverAsked(req.headers.host, req.protocol === 'https')));
  });
  const postman = findPostmanCollection();
  app.get('/api/postman.json', (_req, res) => {
    if (!postman) throw new DomainError('NOT_FOUND', 'The Postman collection was not generated (npm run codegen)');
    res.type('application/json').send(postman);
  });
  app.use('/api/docs', http.documentHeaders);
  app.get('/api/docs', (_req, res) => {
    res.type('html').send(docsPage());
  });
  app.get('/api/docs/init.js', (_req, res) => {
    res.type('application/javascript').send(DOCS_INIT_JS);
  });
  app.use('/api/docs/assets', express.static(SWAGGER_UI_DIR, { index: false, maxAge: '1d' }));
  const consoleServed = mountConsole(app);
  app.get('/metrics', async (_req, res) => {
    res.set('Content-Type', deps.metrics.registry.contentType).send(await deps.metrics.registry.metrics());
  });
  return {
    consoleServed,
    closeStreams(reason: string) {
      for (const close of [...streams]) close(reason);
    },
  };
}

/**
 * GraphQL over HTTP at /graphql (GraphiQL for browsers in development), through the one pipeline
 * that graphql-ws uses too. Budgets are charged per root field, not per HTTP request.
 */
export async function mountGraphql(http: HttpApp, deps: { config: GatewayConfig; services: Services; bus: EventBus; log: Logger; redis?: Redis }) {
  const { app } = http;
  const { config, services } = deps;
  const schema = await buildGraphqlSchema(deps.bus);
  const charging = { budgets: http.limiters.budgets, ttsFields: ttsRootFields() };
  const pipeline = graphqlPipeline(schema, {
    log: deps.log,
    production: config.production,
    charging,
    responseCache: { readModel: services.readModel, roots: READ_MODEL_QUERIES },
    maxResultBytes: config.graphqlMaxResultBytes,
  });
  const { maxBytes, ttlSeconds } = config.graphqlApq;
  const persistedQueries = maxBytes > 0 ? { cache: persistedQueryStore({ maxBytes, ttlSeconds, redis: deps.redis, log: deps.log }), ttlSeconds } : undefined;
  const apollo = await createApollo({ pipeline, production: config.production, persistedQueries });
  // GraphiQL for browsers (development only, like introspection), before the GraphQL server.
  if (!config.production) app.use(graphiqlRouter());
  const knownOperations = new Set(KNOWN_OPERATIONS);
  // The front has read the JSON body (gateway/front).
  app.use(
    '/graphql',
    (req, res, next) => {
      // Until the document is parsed (it may not parse): the name the request gives, if any.
      res.locals.route = graphqlRouteLabel(knownOperations, req.body?.operationName ?? req.query.operationName);
      next();
    },
    // A document nested too deep is refused before Apollo's parser recurses into it.
    documentNestingGuard(),
    // A malformed or mismatched `persistedQuery` extension is a 400 in the gateway's envelope.
    persistedQueryGuard(),
    expressMiddleware(apollo, {
      context: async ({ req, res }): Promise<GqlContext> => ({
        services,
        domain: http.contexts.ofRequest(req),
        onOperation: (name) => {
          res.locals.route = graphqlRouteLabel(knownOperations, name);
        },
      }),
    }),
  );
  // Queries whose answers the response cache keeps are answered by the front's seam, charged as Apollo's admission charges them.
  http.front.useGraphql({ pipeline, charging, routeLabel: (name) => graphqlRouteLabel(knownOperations, name) });
  return { pipeline, apollo };
}

/** tRPC at /trpc; each call of a batch is charged as one request. */
export function mountTrpc(http: HttpApp, deps: { services: Services; log: Logger; maxResultBytes?: number }) {
  const { services, log } = deps;
  const trpcProcedures = new Set(Object.keys(appRouter._def.procedures));
  const contextOf = (req: express.Request, principal = req.principal ?? null) => ({
    services,
    domain: http.contexts.ofRequest(req, principal),
    budgets: http.limiters.budgets,
    // One budget for the whole request, shared by the calls of a batch.
    resultBudget: { maxBytes: deps.maxResultBytes ?? DEFAULT_MAX_RESULT_BYTES, usedBytes: 0 },
  });
  http.app.use(
    '/trpc',
    (req, res, next) => {
      res.locals.route = trpcRouteLabel(trpcProcedures, req.path);
      next();
    },
    plainQuery(contextOf),
    trpcExpress.createExpressMiddleware({
      router: appRouter,
      maxBodySize: 1024 * 1024,
      maxBatchSize: TRPC_MAX_BATCH,
      // A browser's EventSource cannot send headers: subscriptions may carry the key as tRPC's
      // `connectionParams` (httpSubscriptionLink) or `?access_token=` instead.
      createContext: async ({ req, res, info }) => {
        // A plain query that already ran and threw: tRPC answers that error, in its own words.
        if (EARLIER_ERROR in res.locals) throw res.locals[EARLIER_ERROR];
        let principal = req.principal ?? null;
        if (!principal && !req.headers.authorization && info.type === 'subscription') {
          const secret = keyFromConnectionParams(info.connectionParams) ?? accessTokenOf(req.originalUrl);
          if (secret) principal = await services.auth.authenticate(secret);
        }
        return contextOf(req, principal);
      },
      // A refusal that says when to come back (database down, over a budget) sets Retry-After.
      responseMeta: ({ errors }) => {
        const retryAfter = errors.map((e) => (e.cause instanceof DomainError ? e.cause.retryAfterSeconds : undefined)).find((s) => s !== undefined);
        return retryAfter !== undefined ? { headers: { 'Retry-After': String(retryAfter) } } : {};
      },
      onError: ({ error }) => {
        if (error.code === 'INTERNAL_SERVER_ERROR' && !(error.cause instanceof DomainError)) log.error({ err: error.cause ?? error }, 'trpc procedure failed');
      },
    }),
  );
}
