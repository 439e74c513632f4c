import { STATUS_CODES, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer, type RawData } from 'ws';
import { requirePermission, type Principal } from '../domain/auth/principal';
import { DomainError } from '../domain/errors';
import { toClientError } from '../transport/client-error';
import { eventFor } from '../domain/compliance/event-access';
import { COMPLIANCE_CHANNEL, WS_EVENT_OF, WS_EVENT_TYPES, type ComplianceEventType, type WsEventType } from '../domain/compliance/events';
import { makeEvent, type DomainEvent } from '../domain/events/bus';
import type { Services } from '../domain/services';
import { accessTokenOf, bearerFrom } from '../transport/credentials';
import type { Logger } from './logger';
import type { Metrics } from './metrics';
import { clock } from '../domain/clock';

export type UpgradeHandler = (req: IncomingMessage, socket: Duplex, head: Buffer) => void;

export const DASHBOARD_WS_PATH = '/v1/dashboard/ws';
/**
 * Limits of one dashboard socket; exceeding the rate closes it with 1008 naming the limit. A client
 * that does not read (more than `maxBufferedBytes` of events waiting in its socket's buffer) is
 * closed with 1008 too rather than buffered for without limit; it may reconnect and resume.
 */
export const WS_LIMITS = { maxPayloadBytes: 16 * 1024, messagesPerSecond: 20, heartbeatMs: 30_000, maxBufferedBytes: 1024 * 1024 };
const DATABASE_CHECK_MS = 10_000;

interface Client {
  socket: WebSocket;
  principal: Principal;
  events: Set<WsEventType>;
  alive: boolean;
  recent: number[];
}

const WS_TYPES = new Set<string>(WS_EVENT_TYPES);

/** Refuses an upgrade with a plain HTTP answer in the dashboard error envelope. */
function refuse(socket: Duplex, thrown: unknown) {
  const err = toClientError(thrown);
  const body = JSON.stringify({ error: { code: err.code, message: err.message, details: err.details ?? {} } });
  const headers = {
    'Content-Type': 'application/json',
    'Content-Length': String(Buffer.byteLength(body)),
    ...(err.status === 401 ? { 'WWW-Authenticate': 'Bearer' } : {}),
    ...err.headers,
    Connection: 'close',
  };
  socket.end(
    `HTTP/1.1 ${err.status} ${STATUS_CODES[err.status] ?? ''}\r\n${Object.entries(headers)
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('')}\r\n${body}`,
  );
}

const message = (type: string, data: unknown, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ type, data, timestamp: clock.now().toISOString(), ...extra });

/**
 * The dashboard WebSocket (`/v1/dashboard/ws`). The key comes as `Authorization: Bearer` on the
 * upgrade or as `?access_token=`; the caller needs `read:dashboard`. A client chooses event types
 * with `{type: 'subscribe', events: [...]}` and receives `{type, data, timestamp}` (plus the
 * event's `id` and dotted `event` type) for those types only. When the key stops being valid
 * (revoked, here or on another instance; expired; permission gone) the socket gets an `error`
 * message and is closed with 4401 (key no longer valid) or 4403 (permission lost).
 */
export function mountLiveChannels(deps: { upgrades: Map<string, UpgradeHandler>; services: Services; log: Logger; metrics: Metrics }) {
  const { services, log, metrics } = deps;
  const wss = new WebSocketServer({ noServer: true, maxPayload: WS_LIMITS.maxPayloadBytes });
  const clients = new Set<Client>();
  const gauge = () => metrics.liveSubscribers.set({ transport: 'dashboard_ws' }, clients.size);

  deps.upgrades.set(DASHBOARD_WS_PATH, (req, socket, head) => {
    socket.on('error', () => undefined);
    const secret = bearerFrom(req.headers.authorization) ?? accessTokenOf(req.url);
    if (!secret) return refuse(socket, new DomainError('AUTHENTICATION_ERROR', 'Missing API key: send Authorization: Bearer <key> or ?access_token='));
    services.auth
      .authenticate(secret)
      .then((principal) => {
        if (!principal) return refuse(socket, new DomainError('AUTHENTICATION_ERROR'));
        requirePermission({ principal }, 'read:dashboard');
        wss.handleUpgrade(req, socket, head, (ws) => accept(ws, principal));
      })
      .catch((err) => {
        const refusal = toClientError(err);
        if (refusal.serverSide) log.error({ err }, 'dashboard websocket authentication failed');
        refuse(socket, refusal);
      });
  });

  function accept(socket: WebSocket, principal: Principal) {
    const client: Client = { socket, principal, events: new Set(), alive: true, recent: [] };
    clients.add(client);
    gauge();
    // The socket lasts as long as its key: revoked, expired or unknown → 4401, permission lost → 4403.
    const unwatch = services.principals.watch(principal, 'read:dashboard', (loss) => {
      if (socket.readyState !== WebSocket.OPEN) return;
      client.socket.send(message('error', { code: loss.code, message: loss.message, details: loss.details }));
      socket.close(loss.code === 'AUTHENTICATION_ERROR' ? 4401 : 4403, loss.message);
    });
    socket.on('pong', () => (client.alive = true));
    socket.on('message', (raw, isBinary) => onMessage(client, raw, isBinary));
    socket.on('close', () => {
      unwatch();
      clients.delete(client);
      gauge();
    });
    socket.on('error', () => undefined); // e.g. maxPayload exceeded: ws closes with 1009 itself
  }

  const sendError = (client: Client, code: string, text: string) => client.socket.send(message('error', { code, message: text }));

  function onMessage(client: Client, raw: RawData, isBinary: boolean) {
    const now = clock.nowMs();
    client.recent = client.recent.filter((t) => now - t < 1000);
    client.recent.push(now);
    if (client.recent.length > WS_LIMITS.messagesPerSecond) {
      client.socket.close(1008, `rate limit exceeded: at most ${WS_LIMITS.messagesPerSecond} messages per second`);
      return;
    }
    if (isBinary) return sendError(client, 'VALIDATION_ERROR', 'messages must be JSON text');
    let msg: { type?: unknown; events?: unknown } | null;
    try {
      msg = JSON.parse(raw.toString()) as typeof msg;
    } catch {
      return sendError(client, 'VALIDATION_ERROR', 'message is not valid JSON');
    }
    if (!msg || typeof msg !== 'object' || typeof msg.type !== 'string')
      return sendError(client, 'VALIDATION_ERROR', "message must be an object with a string 'type'");
    switch (msg.type) {
      case 'ping':
        client.socket.send(message('pong', {}));
        return;
      case 'subscribe':
      case 'unsubscribe': {
        const events = msg.events;
        if (msg.type === 'unsubscribe' && events === undefined) {
          client.events.clear();
        } else {
          if (!Array.isArray(events) || !events.length || events.length > WS_EVENT_TYPES.length * 2 || !events.every((e: unknown) => typeof e === 'string')) {
            return sendError(client, 'VALIDATION_ERROR', `'events' must be a non-empty array of event types: ${WS_EVENT_TYPES.join(', ')}`);
          }
          const unknown = events.filter((e: string) => !WS_TYPES.has(e));
          if (unknown.length) {
            return sendError(
              client,
              'VALIDATION_ERROR',
              `Unknown event type(s): ${unknown
                .slice(0, 5)
                .map((e: string) => e.slice(0, 40))
                .join(', ')}; allowed: ${WS_EVENT_TYPES.join(', ')}`,
            );
          }
          for (const e of events as WsEventType[]) {
            if (msg.type === 'subscribe') client.events.add(e);
            else client.events.delete(e);
          }
        }
        client.socket.send(message(msg.type === 'subscribe' ? 'subscribed' : 'unsubscribed', { events: [...client.events] }));
        return;
      }
      default:
        return sendError(client, 'VALIDATION_ERROR', `Unknown message type '${String(msg.type).slice(0, 40)}'; use subscribe, unsubscribe or ping`);
    }
  }

  const unsubscribeBus = services.bus.subscribe(COMPLIANCE_CHANNEL, (e: DomainEvent) => {
    const wsType = WS_EVENT_OF[e.type as ComplianceEventType];
    if (!wsType) return;
    // Serialised and UTF-8 encoded once per form of the event (most keys see it whole, some see a
    // redacted form, some nothing: domain/compliance/event-access.ts); sockets share the bytes.
    const frames = new Map<unknown, Buffer>();
    for (const client of clients) {
      if (!client.events.has(wsType) || client.socket.readyState !== WebSocket.OPEN) continue;
      const shown = eventFor(client.principal, e);
      if (!shown) continue;
      if (client.socket.bufferedAmount > WS_LIMITS.maxBufferedBytes) {
        client.socket.close(1008, `slow consumer: more than ${WS_LIMITS.maxBufferedBytes} bytes of events unread`);
        continue;
      }
      let frame = frames.get(shown.data);
      if (!frame)
        frames.set(shown.data, (frame = Buffer.from(JSON.stringify({ type: wsType, data: shown.data, timestamp: e.createdAt, id: e.id, event: e.type }))));
      client.socket.send(frame, { binary: false });
    }
  });

  // Dead peers (no pong since the last ping) are dropped so they do not hold resources.
  const heartbeat = setInterval(() => {
    for (const client of clients) {
      if (!client.alive) {
        client.socket.terminate();
        continue;
      }
      client.alive = false;
      client.socket.ping();
    }
  }, WS_LIMITS.heartbeatMs);
  heartbeat.unref();

  // A system alert when this instance loses (or regains) its database.
  let databaseUp = true;
  let checking = false;
  const databaseWatch = setInterval(() => {
    if (checking) return;
    checking = true;
    void services.health
      .databaseReachable()
      .then(async (up) => {
        if (up === databaseUp) return;
        databaseUp = up;
        log.warn({ databaseUp: up }, 'database reachability changed');
        await services.events.publish([
          makeEvent('system.alert', {
            severity: up ? 'info' : 'critical',
            component: 'database',
            status: up ? 'recovered' : 'unreachable',
            message: up ? 'The database is reachable again' : 'The database is unreachable',
          }),
        ]);
      })
      .finally(() => (checking = false));
  }, DATABASE_CHECK_MS);
  databaseWatch.unref();

  return {
    async close() {
      clearInterval(heartbeat);
      clearInterval(databaseWatch);
      unsubscribeBus();
      deps.upgrades.delete(DASHBOARD_WS_PATH);
      for (const client of clients) client.socket.close(1001, 'server shutting down');
      await new Promise<void>((resolve) => {
        const deadline = setTimeout(() => {
          for (const client of clients) client.socket.terminate();
          resolve();
        }, 1000);
        deadline.unref();
        if (!clients.size) {
          clearTimeout(deadline);
          resolve();
        }
        const check = setInterval(() => {
          if (!clients.size) {
            clearInterval(check);
            clearTimeout(deadline);
            resolve();
          }
        }, 20);
        check.unref();
      });
      wss.close();
      metrics.liveSubscribers.set({ transport: 'dashboard_ws' }, 0);
    },
  };
}
