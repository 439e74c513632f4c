import type { Server } from 'node:http';
import { ApolloServer, type ApolloServerPlugin } from '@apollo/server';
import { ApolloServerPluginDrainHttpServer } from '@apollo/server/plugin/drainHttpServer';
import { ApolloServerPluginCacheControlDisabled, ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import type { ApolloServerOptionsWithGateway } from '@apollo/server';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import { ApolloArmor } from '@escape.tech/graphql-armor';
import { defaultFieldResolver, execute, getOperationAST, GraphQLError, Kind, GraphQLObjectType, parse, specifiedRules, validate, type DocumentNode, type ExecutionArgs, type ExecutionResult, type FragmentDefinitionNode, type GraphQLFormattedError, type GraphQLSchema, type SelectionSetNode } from 'graphql';
import type { SubscribePayload } from 'graphql-ws';
import { buildSchema } from 'type-graphql';
import { rejectUnstorableStrings } from '../domain/validation';
import { DomainError } from '../domain/errors';
import { RESOLVERS } from '../resolvers';
import type { GqlContext } from '../resolvers/context';
import type { Principal } from '../domain/auth/principal';
import type { ReadModel } from '../domain/compliance/read-model/read-model';
import type { Logger } from './logger';
import { checkOperationCost, resultTooLarge } from './graphql-cost';
import type { BudgetKind, Caller, OperationBudgets } from './kit/budgets';
import { graphqlExtensionsOf, toClientError, type ClientError } from './kit/client-error';
import { subscribeIterator, type EventBus } from '../domain/events/bus';

/**
 * Subscriptions bring their own `subscribe` (they read the domain's event bus directly); the
 * pubSub given to type-graphql routes topic-based ones through the same bus.
 */
export async function buildGraphqlSchema(bus: EventBus): Promise<GraphQLSchema> {
  const pubSub = {
    publish: (routingKey: string, payload: unknown) => void bus.publish(routingKey, payload as any),
    subscribe: (routingKey: string) => subscribeIterator(bus, routingKey),
  };
  const schema = await buildSchema({ resolvers: RESOLVERS, validate: false, emitSchemaFile: false, pubSub });
  rejectUnstorableInArguments(schema);
  return schema;
}

/**
 * PostgreSQL text has no U+0000 and UTF-8 no lone surrogate: refuse them in any argument up front (ids skip the domain's parseInput).
 * Only fields that declare arguments are wrapped: a type-graphql global middleware would put an async
 * middleware chain on every field of every row, which costs list reads their throughput.
 */
function rejectUnstorableInArguments(schema: GraphQLSchema) {
  for (const type of Object.values(schema.getTypeMap())) {
    if (!(type instanceof GraphQLObjectType) || type.name.startsWith('__')) continue;
    for (const field of Object.values(type.getFields())) {
      if (!field.args.length) continue;
      const resolve = field.resolve ?? defaultFieldResolver;
      field.resolve = (root, args, context, info) => {
        rejectUnstorableStrings(args);
        return resolve(root, args, context, info);
      };
    }
  }
}

/** Tells the context the operation's name once the document is parsed (an unnamed one: null). */
const operationNamePlugin: ApolloServerPlugin<GqlContext> = {
  async requestDidStart() {
    return {
      async didResolveOperation(rc) {
        rc.contextValue.onOperation?.(rc.operationName ?? null);
      },
    };
  },
};

/** Limits on what one GraphQL document may ask for; each answers an error naming the limit. */
export const GRAPHQL_LIMITS = { maxDepth: 12, maxAliases: 20, maxCost: 20000, maxTokens: 5000, maxDirectives: 20 };

/**
 * Domain errors keep their catalogue code in `extensions.code` (the same code REST answers with)
 * plus the HTTP status it maps to; anything unexpected becomes INTERNAL_ERROR with no detail.
 */
export function formatGraphqlError(log: Logger) {
  return (formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError => {
    const original = error instanceof GraphQLError ? error.originalError : error;
    if (!original || (original instanceof GraphQLError && !original.originalError)) {
      // GraphQL's own validation and parse errors: already safe and descriptive.
      const { extensions, ...rest } = formatted;
      const { stacktrace: _s, exception: _e, ...ext } = (extensions ?? {}) as Record<string, unknown>;
      return { ...rest, extensions: ext };
    }
    const err = toClientError(original);
    if (err.unexpected && err.serverSide) log.error({ err: original }, 'graphql resolver failed');
    return { message: err.message, locations: formatted.locations, path: formatted.path, extensions: graphqlExtensionsOf(err) };
  };
}

/** graphql-armor's depth/alias/cost/directive limits; HTTP (Apollo) and graphql-ws both use these. */
function armorProtection(production: boolean) {
  const armor = new ApolloArmor({
    maxDepth: { n: GRAPHQL_LIMITS.maxDepth },
    maxAliases: { n: GRAPHQL_LIMITS.maxAliases },
    costLimit: { maxCost: GRAPHQL_LIMITS.maxCost },
    // armor's token check runs in parsingDidStart, outside Apollo's parse try/catch, so a syntax error
    // there became a 500; graphql-js's own parse limit (parseOptions below) answers a 400 instead.
    maxTokens: { enabled: false },
    maxDirectives: { n: GRAPHQL_LIMITS.maxDirectives },
    blockFieldSuggestion: { enabled: production },
  });
  return armor.protect();
}

/** Counts each root field of an operation against its limiter (see OperationBudgets). */
export interface OperationCharging {
  budgets: OperationBudgets;
  /** Root fields that count against the TTS limit (the rest count against the plan). */
  ttsFields: ReadonlySet<string>;
}

/** How many root fields of each kind the operation selects (through fragments too); `__typename` is free. */
export function rootFieldCounts(document: DocumentNode, operationName: string | null | undefined, ttsFields: ReadonlySet<string>): Record<BudgetKind, number> {
  const counts: Record<BudgetKind, number> = { tts: 0, plan: 0 };
  const operation = getOperationAST(document, operationName ?? undefined);
  if (!operation) return counts;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const seen = new Set<string>();
  const walk = (set: SelectionSetNode) => {
    for (const sel of set.selections) {
      if (sel.kind === Kind.FIELD) {
        if (sel.name.value !== '__typename') counts[ttsFields.has(sel.name.value) ? 'tts' : 'plan']++;
      } else if (sel.kind === Kind.INLINE_FRAGMENT) {
        walk(sel.selectionSet);
      } else if (!seen.has(sel.name.value)) {
        seen.add(sel.name.value);
        const f = fragments.get(sel.name.value);
        if (f) walk(f.selectionSet);
      }
    }
  };
  walk(operation.selectionSet);
  return counts;
}

/** Charges an operation's root fields to the caller; throws the limiter's 429 when over. */
export async function chargeOperation(charging: OperationCharging, document: DocumentNode, operationName: string | null | undefined, caller: Caller) {
  const counts = rootFieldCounts(document, operationName, charging.ttsFields);
  await charging.budgets.charge('tts', caller, counts.tts);
  await charging.budgets.charge('plan', caller, counts.plan);
}

/** A domain error as graphql-ws sends it: the same `extensions` as GraphQL over HTTP. */
export function wsError(thrown: unknown): GraphQLError {
  const err = toClientError(thrown);
  return new GraphQLError(err.message, { extensions: graphqlExtensionsOf(err) });
}

/** How many distinct subscription documents graphql-ws keeps parsed and validated. */
const WS_DOCUMENT_CACHE_SIZE = 200;

/**
 * graphql-ws runs only graphql-js's standard rules by default, so a subscription over WebSocket would
 * escape the limits HTTP enforces. This `onSubscribe` parses with the same token limit and validates
 * with the standard rules plus armor's; a refused document answers an `error` message, not a close.
 *
 * Parse and validation depend only on the query text (variables are coerced at execution), so a
 * valid document is kept by its text, as Apollo does over HTTP: a thousand clients sending the same
 * subscription share one AST (~2 KB each otherwise, held for the subscription's lifetime) and are
 * validated once. Refused documents are not kept (nobody gets to fill the cache with junk).
 */
export function graphqlWsOnSubscribe<C>(schema: GraphQLSchema, production: boolean, charging?: OperationCharging & { callerOf(ctx: C): Caller }) {
  const rules = [...specifiedRules, ...armorProtection(production).validationRules];
  const documents = new Map<string, DocumentNode>(); // insertion order = least recently used first
  const admit = async (ctx: C, args: ExecutionArgs): Promise<ExecutionArgs | readonly GraphQLError[]> => {
    if (!charging) return args;
    try {
      rejectUnstorableStrings(args.variableValues ?? {});
      await chargeOperation(charging, args.document, args.operationName, charging.callerOf(ctx));
      checkOperationCost(schema, args.document, args.operationName, args.variableValues ?? undefined, GRAPHQL_LIMITS.maxCost);
      return args;
    } catch (err) {
      return [wsError(err)];
    }
  };
  return (ctx: C, _id: string, payload: SubscribePayload): Promise<ExecutionArgs | readonly GraphQLError[]> | readonly GraphQLError[] => {
    const execArgs = (document: DocumentNode): ExecutionArgs => ({ schema, document, operationName: payload.operationName, variableValues: payload.variables ?? undefined });
    const known = documents.get(payload.query);
    if (known) {
      documents.delete(payload.query);
      documents.set(payload.query, known);
      return admit(ctx, execArgs(known));
    }
    let document: DocumentNode;
    try {
      document = parse(payload.query, { maxTokens: GRAPHQL_LIMITS.maxTokens });
    } catch (err) {
      return [err instanceof GraphQLError ? err : new GraphQLError('The document could not be parsed')];
    }
    const errors = validate(schema, document, rules);
    if (errors.length) return errors;
    documents.set(payload.query, document);
    if (documents.size > WS_DOCUMENT_CACHE_SIZE) documents.delete(documents.keys().next().value!);
    return admit(ctx, execArgs(document));
  };
}

type Gateway = ApolloServerOptionsWithGateway<GqlContext>['gateway'];
type Executor = NonNullable<Awaited<ReturnType<Gateway['load']>>['executor']>;

/** Answers of read-model queries kept for as long as the read model's version does not change. */
export interface ResponseCacheOptions {
  /** The read model's version and kept answers, shared with REST and tRPC. */
  readModel: ReadModel;
  /** Root query fields that read only the read model. */
  roots: ReadonlySet<string>;
}

interface Compiled {
  query: CompiledQuery | null;
  /** A query whose every root field is in the response cache's roots (no directives, no fragments at the root). */
  cacheable: boolean;
}

/**
 * A compiled executor behind Apollo. Apollo keeps parsing, validation (armor's limits, introspection
 * off in production), error formatting and HTTP; execution runs a query graphql-jit compiled once per
 * document and operation, instead of graphql-js walking the document for every row. Apollo's
 * `gateway` option is its documented seam for a custom executor; the schema is static.
 *
 * With `cache`, answers of read-model queries (requirements and their findings) are kept per query,
 * operation, variables and caller, tagged with the read model's version read before executing; an
 * answer is reused only while that version is still current, so a committed change on any instance is
 * never hidden. Answers with errors are not kept.
 */
export function compiledExecution(schema: GraphQLSchema, cache?: ResponseCacheOptions, maxResultBytes = DEFAULT_MAX_RESULT_BYTES): Gateway {
  // Apollo hands the same DocumentNode for the same query text (its document store), so compiled
  // queries live as long as their document does. query null: graphql-jit cannot compile it (e.g. an
  // unknown operation name); graphql-js then answers, with its own error.
  const compiled = new WeakMap<DocumentNode, Map<string, Compiled>>();
  const compile = (document: DocumentNode, operationName: string | null): Compiled => {
    let byOperation = compiled.get(document);
    if (!byOperation) compiled.set(document, (byOperation = new Map()));
    const key = operationName ?? '';
    let entry = byOperation.get(key);
    if (entry === undefined) {
      let made: CompiledQuery | ExecutionResult | null;
      try {
        made = compileQuery(schema, document, operationName ?? undefined);
      } catch {
        made = null;
      }
      const query = made && isCompiledQuery(made) ? made : null;
      entry = { query, cacheable: !!query && !!cache && readsOnly(document, operationName, cache.roots) };
      byOperation.set(key, entry);
    }
    return entry;
  };
  const answers = cache?.readModel.keeps ? cache.readModel : null;
  const executor: Executor = async (request) => {
    const variables = request.request.variables ?? {};
    // Variables are checked as a whole before any root field runs (inline literals never get here:
    // graphql-js's lexer refuses lone surrogates itself); the per-field check below covers the rest.
    try {
      rejectUnstorableStrings(variables);
    } catch (err) {
      return { errors: [new GraphQLError((err as Error).message, { originalError: err as Error })] };
    }
    // The name the client asked for (request.operationName is the one Apollo resolved, null when
    // none matched): an unknown name must fail as it does in graphql-js.
    const operationName = request.request.operationName ?? null;
    const { query, cacheable } = compile(request.document, operationName);
    if (query) {
      let key: string | undefined;
      let version: string | undefined;
      const vars = cacheable && answers ? variablesKey(variables) : undefined;
      if (vars !== undefined) {
        try {
          version = await answers!.version();
        } catch (err) {
          // The database is unavailable (or failing): the same error answer as from a resolver, not a 500.
          return { data: null, errors: [new GraphQLError(toClientError(err).message, { originalError: err as Error })] };
        }
        key = `graphql\u0000${request.queryHash}\u0000${operationName ?? ''}\u0000${vars}\u0000${callerKey((request.context as GqlContext).domain.principal)}`;
        const hit = answers!.get<ExecutionResult>(key, version);
        if (hit) return hit;
      }
      const result = await query.query(undefined, request.context, variables);
      if (!result.errors) {
        const size = jsonSize(result);
        if (size > maxResultBytes) return tooLargeResult(size, maxResultBytes);
        if (key !== undefined) answers!.set(key, version!, result, size);
        return result;
      }
      // Field errors come with data; request errors (variables that do not coerce) do not, and
      // graphql-js reports those in the form Apollo recognises as BAD_USER_INPUT.
      if (result.data !== undefined) return capped({ ...result, errors: result.errors.map(asGraphqlJsError) }, maxResultBytes);
    }
    return capped(await execute({ schema, document: request.document, operationName, variableValues: variables, contextValue: request.context }), maxResultBytes);
  };
  return {
    async load() {
      return { schema, executor };
    },
    onSchemaLoadOrUpdate(callback) {
      callback({ apiSchema: schema, coreSupergraphSdl: '' });
      return () => undefined;
    },
    async stop() {},
  };
}

/** Whether the operation is a query whose root fields are all in `roots` (or `__typename`), plainly selected. */
function readsOnly(document: DocumentNode, operationName: string | null, roots: ReadonlySet<string>): boolean {
  const operation = getOperationAST(document, operationName);
  if (!operation || operation.operation !== 'query' || operation.directives?.length) return false;
  const fields = operation.selectionSet.selections;
  return (
    fields.every((s) => s.kind === Kind.FIELD && !s.directives?.length && (s.name.value === '__typename' || roots.has(s.name.value))) &&
    fields.some((s) => s.kind === Kind.FIELD && roots.has(s.name.value))
  );
}

/** Variables as part of a cache key; undefined (not cached) when they are large or too deep to serialise. */
function variablesKey(variables: Record<string, unknown>): string | undefined {
  try {
    const text = JSON.stringify(variables);
    return text.length <= 4096 ? text : undefined;
  } catch {
    return undefined;
  }
}

/** Who the answer was computed for: the same key and permissions get the same answer. */
const callerKeys = new WeakMap<Principal, string>();
function callerKey(principal: Principal | null): string {
  if (!principal) return 'anonymous';
  let key = callerKeys.get(principal);
  if (!key) callerKeys.set(principal, (key = JSON.stringify([principal.keyId, principal.isAdmin, [...principal.permissions].sort()])));
  return key;
}

/** Largest JSON answer of one GraphQL operation, unless configured (GRAPHQL_MAX_RESULT_BYTES). */
export const DEFAULT_MAX_RESULT_BYTES = 5 * 1024 * 1024;

/** The length of a result's JSON (what goes on the wire, near enough: UTF-16 units, not bytes). */
function jsonSize(result: ExecutionResult): number {
  return JSON.stringify(result).length;
}

function tooLargeResult(size: number, maxBytes: number): ExecutionResult {
  return { data: null, errors: [new GraphQLError('The result is too large', { originalError: resultTooLarge(size, maxBytes) })] };
}

/** The result, or a 413 error in its place when its JSON is over the cap. */
export function capped(result: ExecutionResult, maxBytes: number): ExecutionResult {
  const size = jsonSize(result);
  return size > maxBytes ? tooLargeResult(size, maxBytes) : result;
}

/**
 * graphql-jit's errors leave `extensions` undefined, where graphql-js always sets an object (Apollo's
 * error formatting reads `extensions.code`); the same error, as graphql-js builds it.
 */
function asGraphqlJsError(error: GraphQLError): GraphQLError {
  const copy = new GraphQLError(error.message, { path: error.path, originalError: error.originalError, extensions: error.extensions ?? undefined });
  if (error.locations) (copy as { locations?: unknown }).locations = error.locations;
  return copy;
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
          if (err.headers?.['Retry-After'] && (!refusal || err.status > refusal.status)) refusal = err;
        }
        if (!refusal) return;
        response.http.headers.set('retry-after', refusal.headers!['Retry-After']);
        // Over a budget is the caller's 429, as the limiter answered before per-operation budgets;
        // a server-side 503 stays a GraphQL error in a 200 (extensions.status says 503).
        if (refusal.status === 429 && response.body.kind === 'single' && (response.body.singleResult.data ?? null) === null) response.http.status = 429;
      },
    };
  },
};

/** graphql-ws answers with the same error shape (codes, status, retryAfter) as GraphQL over HTTP. */
export function formatWsResult(log: Logger, maxResultBytes = DEFAULT_MAX_RESULT_BYTES) {
  const format = formatGraphqlError(log);
  return (raw: ExecutionResult, measure = true): ExecutionResult => {
    const result = measure ? capped(raw, maxResultBytes) : raw;
    if (!result.errors?.length) return result;
    return { ...result, errors: result.errors.map((e) => format(e.toJSON(), e) as unknown as GraphQLError) };
  };
}

/**
 * Before anything runs, with the variables known: each root field of the operation is charged (429
 * when over a budget), then its list-aware cost is checked (400 when over).
 */
function admissionPlugin(schema: GraphQLSchema, charging: OperationCharging | undefined): ApolloServerPlugin<GqlContext> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ document, operationName, contextValue, request }) {
          try {
            if (charging) await chargeOperation(charging, document, operationName, { ip: contextValue.domain.ip, principal: contextValue.domain.principal });
            checkOperationCost(schema, document, operationName, request.variables, GRAPHQL_LIMITS.maxCost);
          } catch (err) {
            const e = toClientError(err);
            throw new GraphQLError(e.message, { originalError: e.error, extensions: { http: { status: e.status } } });
          }
        },
      };
    },
  };
}

export async function createApollo(opts: {
  schema: GraphQLSchema;
  httpServer: Server;
  production: boolean;
  log: Logger;
  responseCache?: ResponseCacheOptions;
  charging?: OperationCharging;
  /** Largest JSON answer one operation may produce (413 PAYLOAD_TOO_LARGE beyond). */
  maxResultBytes?: number;
  extraPlugins?: ApolloServerPlugin<GqlContext>[];
}) {
  const protection = armorProtection(opts.production);
  const plugins: ApolloServerPlugin<GqlContext>[] = [
    ApolloServerPluginDrainHttpServer({ httpServer: opts.httpServer }),
    ...(protection.plugins as ApolloServerPlugin<GqlContext>[]),
    admissionPlugin(opts.schema, opts.charging),
    retryAfterPlugin,
    operationNamePlugin,
    ...(opts.extraPlugins ?? []),
  ];
  // Apollo's landing page loads Sandbox from Apollo's CDN; browsers get the bundled GraphiQL instead (gateway/graphiql.ts).
  plugins.push(ApolloServerPluginLandingPageDisabled());
  // No cache hints are used; without this plugin no resolver is wrapped for `willResolveField`.
  plugins.push(ApolloServerPluginCacheControlDisabled());
  const apollo = new ApolloServer<GqlContext>({
    gateway: compiledExecution(opts.schema, opts.responseCache, opts.maxResultBytes),
    introspection: !opts.production,
    includeStacktraceInErrorResponses: false,
    allowBatchedHttpRequests: false,
    formatError: formatGraphqlError(opts.log),
    validationRules: protection.validationRules,
    parseOptions: { maxTokens: GRAPHQL_LIMITS.maxTokens },
    plugins,
    csrfPrevention: true,
    // The gateway owns signal handling (gateway/main.ts) and stops Apollo as one step of its shutdown.
    stopOnTerminationSignals: false,
  });
  await apollo.start();
  return apollo;
}
