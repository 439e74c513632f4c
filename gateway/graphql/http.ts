import { ApolloServer, type ApolloServerOptionsWithGateway, type ApolloServerPlugin } from '@apollo/server';
import { ApolloServerPluginCacheControlDisabled, ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import type { KeyValueCache } from '@apollo/utils.keyvaluecache';
import { GraphQLError } from 'graphql';
import type { GqlContext } from '../../resolvers/context';
import { toClientError, type ClientError } from '../../transport/client-error';
import type { Operation, Pipeline } from './pipeline';
import { asGraphqlError } from './parts/errors';
import { stringifyResult } from './parts/limits';

type Gateway = ApolloServerOptionsWithGateway<GqlContext>['gateway'];
type Executor = NonNullable<Awaited<ReturnType<Gateway['load']>>['executor']>;
type GatewayRequest = Parameters<Executor>[0];

/** The operation as the pipeline sees it; the name is the one the client asked for (Apollo's is null when none matched). */
function operationOf(request: {
  document?: unknown;
  queryHash?: string;
  request: { operationName?: string | null; variables?: Record<string, unknown> };
  contextValue?: GqlContext;
  context?: GqlContext;
}): Operation {
  return {
    document: request.document as Operation['document'],
    documentKey: request.queryHash!,
    operationName: request.request.operationName ?? null,
    variables: request.request.variables ?? {},
    context: (request.contextValue ?? request.context)!,
  };
}

/**
 * Apollo keeps HTTP, parsing and validation (with the pipeline's limits and rules) and formats errors
 * with the pipeline's formatter; execution is the pipeline's. Apollo's `gateway` option is its one
 * seam for an executor of one's own (docs/decisions.md, "One GraphQL pipeline"); the schema is static.
 */
function pipelineExecutor(pipeline: Pipeline): Gateway {
  const executor: Executor = (request: GatewayRequest) => pipeline.execute(operationOf(request as never));
  return {
    async load() {
      return { schema: pipeline.schema, executor };
    },
    onSchemaLoadOrUpdate(callback) {
      callback({ apiSchema: pipeline.schema, coreSupergraphSdl: '' });
      return () => undefined;
    },
    async stop() {},
  };
}

/** The pipeline's admission (input checks, budgets, list cost) once Apollo has the operation: a refusal answers its HTTP status. */
function admissionPlugin(pipeline: Pipeline): ApolloServerPlugin<GqlContext> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation(rc) {
          // Tells the context the operation's name (the /metrics route label; an unnamed one: null).
          rc.contextValue.onOperation?.(rc.operationName ?? null);
          try {
            await pipeline.admit(operationOf(rc as never));
          } catch (err) {
            throw asGraphqlError(err);
          }
        },
      };
    },
  };
}

/**
 * A refusal that says when to come back (503 with the database down, 429 over a budget) carries its
 * `Retry-After` on the HTTP answer too.
 */
export const retryAfterPlugin: ApolloServerPlugin<GqlContext> = {
  async requestDidStart() {
    return {
      async willSendResponse({ response, errors }) {
        if (!errors?.length) return;
        let refusal: ClientError | undefined;
        for (const e of errors) {
          const original = e instanceof GraphQLError ? e.originalError : e;
          if (!original) continue;
          const err = toClientError(original);
          if (err.retryAfter !== undefined && (!refusal || err.status > refusal.status)) refusal = err;
        }
        if (!refusal) return;
        response.http.headers.set('retry-after', String(refusal.retryAfter));
        // Over a budget is the caller's 429, as the limiter answered before per-operation budgets;
        // a server-side 503 stays a GraphQL error in a 200 (extensions.status says 503).
        if (refusal.status === 429 && response.body.kind === 'single' && (response.body.singleResult.data ?? null) === null) response.http.status = 429;
      },
    };
  },
};

/**
 * The CSRF rule, in this one place (Apollo's `csrfPrevention`): a request is taken when its
 * `Content-Type` is not one a plain HTML form can send, or when it carries one of these headers,
 * which a browser sends cross-site only after a CORS preflight the gateway's policy answers. So a
 * GET (no body, no content type: urql's default, Apollo Client's `useGETForQueries`) is taken with
 * the caller's key in `Authorization` or a preflight header, and refused (400 BAD_REQUEST) without.
 */
export const PREFLIGHT_HEADERS = ['authorization', 'apollo-require-preflight', 'x-apollo-operation-name', 'graphql-preflight'];

/** GraphQL over HTTP: Apollo Server around the pipeline. */
export async function createApollo(opts: {
  pipeline: Pipeline;
  production: boolean;
  /** Where automatic persisted queries' texts live (persisted-queries.ts); undefined: APQ is off. */
  persistedQueries?: { cache: KeyValueCache<string>; ttlSeconds: number };
}) {
  const { pipeline } = opts;
  const apollo = new ApolloServer<GqlContext>({
    gateway: pipelineExecutor(pipeline),
    introspection: !opts.production,
    includeStacktraceInErrorResponses: false,
    allowBatchedHttpRequests: false,
    formatError: pipeline.formatError,
    // The text the result-size cap already made, when it made one (parts/limits.ts); else Apollo's own.
    stringifyResult,
    validationRules: pipeline.validationRules,
    parseOptions: pipeline.parseOptions,
    plugins: [
      admissionPlugin(pipeline),
      retryAfterPlugin,
      // Apollo's landing page loads Sandbox from Apollo's CDN; browsers get the bundled GraphiQL instead (gateway/graphiql.ts).
      ApolloServerPluginLandingPageDisabled(),
      // No cache hints are used; without this plugin no resolver is wrapped for `willResolveField`.
      ApolloServerPluginCacheControlDisabled(),
    ],
    csrfPrevention: { requestHeaders: PREFLIGHT_HEADERS },
    // Over GET and POST alike; a mutation over GET is Apollo's 405 (Allow: POST).
    persistedQueries: opts.persistedQueries ? { cache: opts.persistedQueries.cache, ttl: opts.persistedQueries.ttlSeconds } : false,
    // The gateway owns signal handling (gateway/main.ts) and stops Apollo as one step of its shutdown.
    stopOnTerminationSignals: false,
  });
  await apollo.start();
  return apollo;
}
