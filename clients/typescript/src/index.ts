import { dashboardEvents, type DashboardEvent, type DashboardEventsOptions } from './dashboard';
import { isGatewayError } from './errors';
import { RestOperations } from './generated/operations';
import { GraphqlClient } from './graphql';
import type { ClientOptions } from './transport';

/**
 * The gateway's client: every REST operation as a method named by its operationId
 * (`generateSpeech`, `listRequirements`, …), GraphQL (`graphql.request`, `graphql.subscribe`),
 * progressive generation and dashboard events as async iterators.
 *
 *   const gw = new GatewayClient({ baseUrl: 'http://localhost:3000', apiKey: process.env.API_KEY });
 *   const { audioUrl } = await gw.generateSpeech({ text: 'Hello', options: { provider: 'mock' } });
 */
export class GatewayClient extends RestOperations {
  readonly graphql: GraphqlClient;

  constructor(options: ClientOptions) {
    super(options);
    this.graphql = new GraphqlClient(this.baseUrl, this.apiKey, this.fetchImpl);
  }

  /** Live compliance events from the dashboard WebSocket, re-connecting when the connection drops. */
  dashboardEvents(options: DashboardEventsOptions = {}): AsyncIterableIterator<DashboardEvent> {
    return dashboardEvents(this.baseUrl, this.apiKey, options);
  }

  /** Whether audio exists under a direct hash (HEAD /api/v1/audio/{hash}). */
  async hasAudio(hash: string): Promise<boolean> {
    try {
      await this.audioExists(hash);
      return true;
    } catch (err) {
      if (isGatewayError(err, 'NOT_FOUND')) return false;
      throw err;
    }
  }

  /** Closes the client's sockets (GraphQL subscriptions). */
  async close(): Promise<void> {
    await this.graphql.close();
  }
}

export type { ClientOptions } from './transport';
export type { BinaryResponse, CallOptions, OperationName, QueryOf, RequestBody, SuccessBody } from './types';
export type { DashboardEvent, DashboardEventsOptions } from './dashboard';
export type { ProgressEvent } from './progressive';
export { OPERATIONS, type OperationId } from './generated/operations';
export * from './generated/constants';
export * from './errors';
export { GraphqlClient, GraphqlError, type GraphqlDocument, type GraphqlErrorItem } from './graphql';
export { verifyWebhook, signWebhook, WebhookSignatureError, type WebhookEvent, type VerifyOptions } from './webhooks';
export type { components, operations, paths } from './generated/openapi';
export * as documents from './generated/graphql';
