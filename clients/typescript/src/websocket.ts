/** The few WebSocket operations the client needs, over `ws` in Node or the browser's WebSocket. */
export interface WebSocketLike {
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: (() => void) | null;
  onmessage: ((m: { data: unknown }) => void) | null;
  onclose: ((code: number, reason: string) => void) | null;
  /** The upgrade was answered with an HTTP error instead (Node only; browsers do not expose it). */
  onrefused: ((status: number, body: string) => void) | null;
}

const isNode = typeof process !== 'undefined' && !!process.versions?.node;

/** The WebSocket class for graphql-ws: `ws` in Node (any version), the global one elsewhere. */
export function webSocketClass(): unknown {
  return isNode ? require('ws') : browserWebSocket();
}

/** The part of the browser's WebSocket this client uses (the package does not depend on the DOM types). */
interface BrowserWebSocket {
  onopen: (() => void) | null;
  onmessage: ((m: { data: unknown }) => void) | null;
  onclose: ((e: { code: number; reason: string }) => void) | null;
  send(data: string): void;
  close(code?: number, reason?: string): void;
}

function browserWebSocket(): (new (url: string) => BrowserWebSocket) | undefined {
  return (globalThis as unknown as { WebSocket?: new (url: string) => BrowserWebSocket }).WebSocket;
}

/**
 * Opens a socket carrying the key: as `Authorization: Bearer` where headers can be set (Node), else
 * as `?access_token=` (browsers cannot set headers on a WebSocket).
 */
export function webSocketImplementation(url: string, apiKey: string | undefined): { socket: WebSocketLike; headerAuth: boolean } {
  const like: WebSocketLike = { send: () => undefined, close: () => undefined, onopen: null, onmessage: null, onclose: null, onrefused: null };
  let closed = false;
  const closeOnce = (code: number, reason: string) => {
    if (closed) return;
    closed = true;
    like.onclose?.(code, reason);
  };
  if (isNode) {
    const WS = require('ws') as typeof import('ws');
    const ws = new WS(url, { headers: apiKey ? { authorization: `Bearer ${apiKey}` } : {} });
    ws.on('open', () => like.onopen?.());
    ws.on('message', (data, isBinary) => like.onmessage?.({ data: isBinary ? data : data.toString() }));
    ws.on('close', (code, reason) => closeOnce(code, reason.toString()));
    ws.on('error', () => undefined); // a close follows
    ws.on('unexpected-response', (req, res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        like.onrefused?.(res.statusCode ?? 0, Buffer.concat(chunks).toString());
        req.destroy();
        closeOnce(1006, `HTTP ${res.statusCode}`);
      });
      res.on('error', () => closeOnce(1006, `HTTP ${res.statusCode}`));
    });
    like.send = (d) => ws.send(d);
    like.close = (code, reason) => (ws.readyState === WS.CONNECTING ? ws.terminate() : ws.close(code, reason));
    return { socket: like, headerAuth: true };
  }
  const target = apiKey ? `${url}${url.includes('?') ? '&' : '?'}access_token=${encodeURIComponent(apiKey)}` : url;
  const BrowserSocket = browserWebSocket();
  if (!BrowserSocket) throw new Error('No WebSocket implementation: run in a browser, or in Node.js where the ws package is used');
  const ws = new BrowserSocket(target);
  ws.onopen = () => like.onopen?.();
  ws.onmessage = (m: { data: unknown }) => like.onmessage?.(m);
  ws.onclose = (e: { code: number; reason: string }) => closeOnce(e.code, e.reason);
  like.send = (d) => ws.send(d);
  like.close = (code, reason) => ws.close(code, reason);
  return { socket: like, headerAuth: false };
}
