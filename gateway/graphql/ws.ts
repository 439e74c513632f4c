import type { IncomingMessage } from 'node:http';
import { GraphQLError, type DocumentNode, type ExecutionArgs, type ExecutionResult } from 'graphql';
import { WebSocketServer } from 'ws';
import { CloseCode } from 'graphql-ws';
import { useServer } from 'graphql-ws/use/ws';
import type { Principal } from '../../domain/auth/principal';
import type { Services } from '../../domain/services';
import type { GqlContext } from '../../resolvers/context';
import { accessTokenOf, bearerFrom } from '../../transport/credentials';
import type { RequestContexts } from '../../transport/request-context';
import type { UpgradeHandler } from '../live';
import type { Pipeline } from './pipeline';
import { asGraphqlError } from './parts/errors';
import { DomainError } from '../../domain/errors';

type Connection = {
  request: IncomingMessage;
  /** The key the socket opened with, checked again for each operation. */
  secret?: string;
  principal?: Principal | null;
};

/** Largest graphql-ws message a client may send. */
export const GRAPHQL_WS_MAX_PAYLOAD_BYTES = 64 * 1024;

/**
 * GraphQL over WebSocket (graphql-ws) through the same pipeline as HTTP: the same parse and
 * validation rules, the same admission (input checks, budgets, list cost), the same execution
 * (compiled, response cache, result cap) for queries and mutations, the same error formatting.
 * A refused document or operation answers an `error` message; the connection stays.
 */
export function graphqlWsServer(deps: {
  pipeline: Pipeline;
  services: Services;
  contexts: RequestContexts;
  clientIpOf(req: IncomingMessage): string | undefined;
}) {
  const { pipeline, services, contexts } = deps;
  const documentKeys = new WeakMap<DocumentNode, string>();
  const refusal = (thrown: unknown): readonly GraphQLError[] => {
    // graphql-ws sends these as they are (it takes GraphQLError instances only): formatted first.
    const e = asGraphqlError(thrown);
    const formatted = pipeline.formatError(e.toJSON(), e);
    return [new GraphQLError(formatted.message, { extensions: formatted.extensions })];
  };
  const wss = new WebSocketServer({ noServer: true, maxPayload: GRAPHQL_WS_MAX_PAYLOAD_BYTES });
  const server = useServer<Record<string, unknown>, Connection>(
    {
      schema: pipeline.schema,
      onConnect: async (ctx) => {
        const given = ctx.connectionParams?.authorization;
        const fromParams = typeof given === 'string' ? (bearerFrom(given) ?? given) : undefined;
        const secret = fromParams ?? bearerFrom(ctx.extra.request.headers.authorization) ?? accessTokenOf(ctx.extra.request.url);
        ctx.extra.principal = secret ? await services.auth.authenticate(secret) : null;
        ctx.extra.secret = secret;
        if (secret && !ctx.extra.principal) {
          // An unknown, revoked or expired key is an authentication failure (as HTTP's 401): 4401 at
          // once, which graphql-ws clients do not retry. graphql-ws's own refusal would be 4403 Forbidden.
          ctx.extra.socket.close(CloseCode.Unauthorized, 'The API key is unknown, revoked or expired');
          return false;
        }
        return true;
      },
      onSubscribe: async (ctx, _id, payload): Promise<ExecutionArgs | readonly GraphQLError[]> => {
        // Each operation re-checks the connection's key (as each HTTP request does): a key revoked or
        // expired since the socket opened gets AUTHENTICATION_ERROR, not the rights it had.
        if (ctx.extra.secret) {
          try {
            ctx.extra.principal = await services.auth.authenticate(ctx.extra.secret);
          } catch (err) {
            // The key could not be checked (database unavailable): this operation is refused, the connection stays.
            return refusal(err);
          }
        }
        const prepared = pipeline.prepare(payload.query);
        if ('errors' in prepared) {
          // A refusal of the pipeline's own (a document nested too deep) carries its code as on HTTP.
          const own = prepared.errors.find((e) => e.originalError instanceof DomainError);
          return own ? refusal(own.originalError) : prepared.errors;
        }
        const { document, documentKey } = prepared;
        documentKeys.set(document, documentKey);
        const context: GqlContext = { services, domain: contexts.of({ principal: ctx.extra.principal ?? null, ip: deps.clientIpOf(ctx.extra.request) }) };
        const operationName = payload.operationName ?? null;
        const variables = payload.variables ?? {};
        try {
          await pipeline.admit({ document, documentKey, operationName, variables, context });
        } catch (err) {
          return refusal(err);
        }
        return { schema: pipeline.schema, document, operationName, variableValues: variables, contextValue: context };
      },
      execute: (args) =>
        pipeline.execute({
          document: args.document,
          documentKey: documentKeys.get(args.document)!,
          operationName: args.operationName ?? null,
          variables: (args.variableValues ?? {}) as Record<string, unknown>,
          context: args.contextValue as GqlContext,
        }),
      onNext: (_ctx, _id, _payload, _args, result) => pipeline.formatResult(result as ExecutionResult) as never,
    },
    wss,
  );
  const upgrade: UpgradeHandler = (req, socket, head) => wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
  return {
    upgrade,
    async close() {
      await server.dispose();
      wss.close();
    },
  };
}
