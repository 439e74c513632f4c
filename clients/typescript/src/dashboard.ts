import type { WebhookEventType, WsEventType } from './generated/constants';
import { errorFor } from './errors';
import { AsyncQueue, reconnectDelayMs } from './reconnect';
import { webSocketImplementation, type WebSocketLike } from './websocket';

/**
 * One event on the dashboard WebSocket (`/v1/dashboard/ws`):
 * `{type, data, timestamp, id, event}` — `type` is one of the five WebSocket event types, `event`
 * the dotted domain event (`requirement.updated`, …; the webhook `type`), `id` the event's id
 * (the same as the webhook's `webhook-id`), `data` the changed record.
 */
export interface DashboardEvent<T = Record<string, unknown>> {
  type: WsEventType;
  data: T;
  timestamp: string;
  id: string;
  event: WebhookEventType;
}

export interface DashboardEventsOptions {
  /** Event types to receive (default: all five). */
  events?: WsEventType[];
  /** Ends the iteration and closes the socket. */
  signal?: AbortSignal;
  /** Reconnect after the connection drops (default true; 250 ms doubling to 10 s, with jitter). */
  reconnect?: boolean;
  /** Called each time the gateway has confirmed the subscription (after every (re)connect). */
  onSubscribed?: (events: WsEventType[]) => void;
}

const ALL: WsEventType[] = ['requirement_updated', 'compliance_changed', 'validation_completed', 'user_activity', 'system_alert'];

/**
 * Live compliance events as an async iterator over the dashboard WebSocket. The key goes as
 * `Authorization: Bearer` (Node, `ws`) or `?access_token=` (browsers). A dropped connection is
 * re-opened and the subscription sent again; events published while it was down are not replayed
 * (webhooks are the at-least-once channel). A refused key ends the iteration with the error.
 */
export function dashboardEvents(baseUrl: string, apiKey: string | undefined, options: DashboardEventsOptions = {}): AsyncIterableIterator<DashboardEvent> {
  const queue = new AsyncQueue<DashboardEvent>();
  const events = options.events?.length ? options.events : ALL;
  const reconnect = options.reconnect ?? true;
  let socket: WebSocketLike | null = null;
  let stopped = false;
  let attempt = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const stop = () => {
    if (stopped) return;
    stopped = true;
    clearTimeout(timer);
    try {
      socket?.close(1000, 'client done');
    } catch {
      /* not open yet */
    }
    queue.end();
  };
  options.signal?.addEventListener('abort', stop, { once: true });

  const fail = (err: unknown) => {
    stopped = true;
    clearTimeout(timer);
    try {
      socket?.close(1000);
    } catch {
      /* ignore */
    }
    queue.fail(err);
  };

  const open = () => {
    if (stopped) return;
    const { socket: s } = webSocketImplementation(`${baseUrl.replace(/^http/, 'ws')}/v1/dashboard/ws`, apiKey);
    socket = s;
    s.onopen = () => s.send(JSON.stringify({ type: 'subscribe', events }));
    s.onmessage = (m) => {
      let msg: { type?: string; data?: { events?: WsEventType[]; code?: unknown; message?: unknown } };
      try {
        msg = JSON.parse(String(m.data)) as typeof msg;
      } catch {
        return;
      }
      if (msg.type === 'subscribed') {
        attempt = 0;
        options.onSubscribed?.(msg.data?.events ?? events);
      } else if (msg.type === 'error') {
        fail(errorFor(String(msg.data?.code ?? 'VALIDATION_ERROR'), String(msg.data?.message ?? 'refused by the gateway')));
      } else if (msg.type !== 'pong' && msg.type !== 'unsubscribed') {
        queue.push(msg as DashboardEvent);
      }
    };
    s.onrefused = (status, body) => {
      // The upgrade was answered with an HTTP error (401/403): retrying cannot help.
      const parsed = (() => {
        try {
          return JSON.parse(body);
        } catch {
          return null;
        }
      })();
      const e = parsed?.error;
      if (status === 401 || status === 403)
        fail(errorFor(e?.code ?? (status === 401 ? 'AUTHENTICATION_ERROR' : 'AUTHORIZATION_ERROR'), e?.message ?? `HTTP ${status}`, { status }));
    };
    s.onclose = (code, reason) => {
      if (socket === s) socket = null;
      if (stopped) return;
      if (!reconnect) {
        return fail(errorFor('SERVICE_UNAVAILABLE', `dashboard socket closed (${code}${reason ? `: ${reason}` : ''})`, { status: 503 }));
      }
      attempt += 1;
      timer = setTimeout(open, reconnectDelayMs(attempt));
    };
  };
  open();

  const iterator: AsyncIterableIterator<DashboardEvent> = {
    next: () => queue.next(),
    async return() {
      stop();
      return { value: undefined, done: true };
    },
    [Symbol.asyncIterator]: () => iterator,
  };
  return iterator;
}
