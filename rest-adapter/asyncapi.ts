import { SERVICE_VERSION } from '../domain/health';
import { COMPLIANCE_EVENT_TYPES, WS_EVENT_OF, WS_EVENT_TYPES } from '../domain/compliance/events';

/** The shape of every frame the dashboard WebSocket sends (gateway/live.ts `message`). */
const frame = (type: Record<string, unknown>, data: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  type: 'object',
  required: ['type', 'data', 'timestamp', ...Object.keys(extra)],
  properties: { type, data, timestamp: { type: 'string', format: 'date-time' }, ...extra },
});
const eventsList = { type: 'array', minItems: 1, items: { type: 'string', enum: [...WS_EVENT_TYPES] } };

/**
 * AsyncAPI 3.0 for `/v1/dashboard/ws`, built from the same event lists the socket checks
 * subscriptions against, so the document cannot name an event the server does not send.
 */
export function buildAsyncApi(server: AsyncApiServer = { host: 'localhost:3000', protocol: 'ws' }) {
  const messages: Record<string, unknown> = {
    subscribe: {
      name: 'subscribe',
      summary: 'Start receiving the listed event types',
      payload: { type: 'object', required: ['type', 'events'], properties: { type: { const: 'subscribe' }, events: eventsList } },
      examples: [{ name: 'scores', payload: { type: 'subscribe', events: ['compliance_changed', 'requirement_updated'] } }],
    },
    unsubscribe: {
      name: 'unsubscribe',
      summary: 'Stop receiving the listed event types (all of them when `events` is left out)',
      payload: { type: 'object', required: ['type'], properties: { type: { const: 'unsubscribe' }, events: eventsList } },
    },
    ping: {
      name: 'ping',
      summary: 'Application-level keep-alive; answered with pong',
      payload: { type: 'object', required: ['type'], properties: { type: { const: 'ping' } } },
    },
    subscribed: {
      name: 'subscribed',
      summary: 'The event types now subscribed to',
      payload: frame(
        { const: 'subscribed' },
        { type: 'object', required: ['events'], properties: { events: { type: 'array', items: { type: 'string', enum: [...WS_EVENT_TYPES] } } } },
      ),
    },
    unsubscribed: {
      name: 'unsubscribed',
      summary: 'The event types still subscribed to',
      payload: frame(
        { const: 'unsubscribed' },
        { type: 'object', required: ['events'], properties: { events: { type: 'array', items: { type: 'string', enum: [...WS_EVENT_TYPES] } } } },
      ),
    },
    pong: { name: 'pong', summary: 'Answer to ping', payload: frame({ const: 'pong' }, { type: 'object' }) },
    error: {
      name: 'error',
      summary:
        'A message the server could not accept (the connection stays open), or the key stopped being valid: AUTHENTICATION_ERROR (revoked, expired; close 4401 follows) or AUTHORIZATION_ERROR (permission lost; close 4403 follows), with `details.reason`',
      payload: frame(
        { const: 'error' },
        {
          type: 'object',
          required: ['code', 'message'],
          properties: {
            code: { type: 'string', examples: ['VALIDATION_ERROR', 'AUTHENTICATION_ERROR', 'AUTHORIZATION_ERROR'] },
            message: { type: 'string' },
            details: { type: 'object', properties: { reason: { type: 'string', enum: ['revoked', 'expired', 'invalid', 'permission'] } } },
          },
        },
      ),
    },
  };
  for (const wsType of WS_EVENT_TYPES) {
    const dotted = COMPLIANCE_EVENT_TYPES.filter((t) => WS_EVENT_OF[t] === wsType);
    messages[wsType] = {
      name: wsType,
      summary: `A ${wsType} event (domain events: ${dotted.join(', ')})`,
      payload: frame({ const: wsType }, { type: 'object', additionalProperties: true }, { id: { type: 'string' }, event: { type: 'string', enum: dotted } }),
    };
  }
  const ref = (name: string) => ({ $ref: `#/channels/dashboard/messages/${name}` });
  const received = ['subscribed', 'unsubscribed', 'pong', 'error', ...WS_EVENT_TYPES];
  return {
    asyncapi: '3.0.0',
    info: {
      title: 'Speech and compliance gateway: dashboard WebSocket',
      version: SERVICE_VERSION,
      description:
        "Live compliance events. Connect with `Authorization: Bearer <key>` on the upgrade request or `?access_token=<key>` (browsers); the key needs `read:dashboard`. A refused key gets an HTTP 401/403 with the JSON error envelope instead of the upgrade. The socket lasts as long as its key: once the key is revoked (on any instance, or an issuer above it), expires or loses `read:dashboard`, an `error` message is sent and the socket is closed with 4401 (key no longer valid) or 4403 (permission lost). Send `subscribe` with the event types wanted; nothing is sent before. A key receives only the events whose data it may read over REST (requirement and validation events need `read:requirements`, finding events `read:audits`, score changes `read:compliance` or `read:dashboard`, a report's completion only its requester and the admin; docs/permissions.md). The same events reach webhooks with their dotted types (see the `webhooks` section of /api/openapi.json).",
      license: { name: 'Proprietary (UNLICENSED)' },
    },
    defaultContentType: 'application/json',
    servers: {
      gateway: {
        host: server.host,
        protocol: server.protocol,
        description: 'The gateway itself; use wss behind TLS',
        security: [{ $ref: '#/components/securitySchemes/bearer' }, { $ref: '#/components/securitySchemes/accessToken' }],
      },
    },
    channels: {
      dashboard: { address: '/v1/dashboard/ws', title: 'Dashboard events', messages },
    },
    operations: {
      sendSubscribe: {
        action: 'send',
        channel: { $ref: '#/channels/dashboard' },
        summary: 'Choose event types, or ping',
        messages: ['subscribe', 'unsubscribe', 'ping'].map(ref),
      },
      receiveEvents: {
        action: 'receive',
        channel: { $ref: '#/channels/dashboard' },
        summary: 'Events of the subscribed types, and answers to what was sent',
        messages: received.map(ref),
      },
    },
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <API_KEY> on the upgrade request' },
        accessToken: { type: 'httpApiKey', in: 'query', name: 'access_token', description: 'For clients that cannot set headers (a browser WebSocket)' },
      },
    },
  };
}

export interface AsyncApiServer {
  host: string;
  protocol: 'ws' | 'wss';
}

/** `host[:port]` as a Host header may carry it (names, IPv4, bracketed IPv6); anything else is not echoed. */
const HOST = /^(?:[A-Za-z0-9](?:[A-Za-z0-9.-]{0,252})|\[[0-9A-Fa-f:.]{2,45}\])(?::\d{1,5})?$/;

/** The server entry for the host the document was asked from (`Host`), so the address works as served; `localhost:3000` when the header is absent or malformed. */
export function serverAsked(host: string | undefined, secure: boolean): AsyncApiServer {
  return { host: host && HOST.test(host) ? host : 'localhost:3000', protocol: secure ? 'wss' : 'ws' };
}
