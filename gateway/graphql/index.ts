import type { GraphQLSchema } from 'graphql';
import { buildSchema } from 'type-graphql';
import { RESOLVERS } from '../../resolvers';
import { subscribeIterator, type DomainEvent, type EventBus } from '../../domain/events/bus';
import type { Logger } from '../logger';
import { createPipeline, type Pipeline } from './pipeline';
import { guardArguments, inputChecks } from './parts/input-checks';
import { operationBudgets, type OperationCharging } from './parts/budgets';
import { documentLimits, listCost, resultSizeCap } from './parts/limits';
import { responseCache, type ResponseCacheOptions } from './parts/response-cache';
import { compiledExecution } from './parts/compiled-execution';
import { errorFormatting } from './parts/errors';
import { directFieldResolvers, plainPropertyFields } from './type-graphql-seam';

export { GRAPHQL_LIMITS, DEFAULT_MAX_RESULT_BYTES } from './parts/limits';
export { createApollo } from './http';
export { graphqlWsServer } from './ws';
export type { Pipeline } from './pipeline';

/**
 * Subscriptions bring their own `subscribe` (they read the domain's event bus directly); the
 * pubSub given to type-graphql routes topic-based ones through the same bus.
 */
export async function buildGraphqlSchema(bus: EventBus): Promise<GraphQLSchema> {
  const pubSub = {
    publish: (routingKey: string, payload: unknown) => void bus.publish(routingKey, payload as DomainEvent),
    subscribe: (routingKey: string) => subscribeIterator(bus, routingKey),
  };
  // No globalMiddlewares and no authChecker: plainPropertyFields relies on it (permissions live in the resolvers and the domain).
  const schema = await buildSchema({ resolvers: RESOLVERS, validate: false, emitSchemaFile: false, pubSub });
  plainPropertyFields(schema);
  directFieldResolvers(schema, RESOLVERS);
  guardArguments(schema);
  return schema;
}

/**
 * The gateway's one GraphQL pipeline, used by Apollo (HTTP) and graphql-ws alike. Admission runs in
 * the order listed (input checks, then budgets, then list cost); execution wraps from the outside in
 * (kept answers, then the result-size cap, then compiled execution, then graphql-js).
 */
export function graphqlPipeline(
  schema: GraphQLSchema,
  opts: { log: Logger; production: boolean; charging: OperationCharging; responseCache: ResponseCacheOptions; maxResultBytes?: number },
): Pipeline {
  return createPipeline(schema, [
    documentLimits(),
    errorFormatting(opts.log, opts.production),
    inputChecks(),
    operationBudgets(opts.charging),
    listCost(schema),
    responseCache(opts.responseCache),
    resultSizeCap(opts.maxResultBytes),
    compiledExecution(schema),
  ]);
}
