import type { ServerResponse } from 'node:http';

const ASKS_CLOSE = /(?:^|,)\s*close\s*(?:,|$)/i;

/**
 * A client that sent `Connection: close` (`asked`: its Connection header) gets `Connection: close`
 * and its socket is closed after the answer, whatever a handler set: tRPC's SSE answers (and any
 * stream) set `Connection: keep-alive` themselves, which makes Node keep the socket, so a client
 * reusing it got a bare 400. The header is set just before the head goes out (the pattern of
 * jshttp's on-headers).
 */
export function honourConnectionClose(asked: string | undefined, res: ServerResponse): void {
  if (asked === undefined || asked === 'keep-alive' || !ASKS_CLOSE.test(asked)) return;
  const writeHead = res.writeHead as (...args: unknown[]) => ServerResponse;
  res.writeHead = function (this: ServerResponse, ...args: unknown[]) {
    if (!this.headersSent) this.setHeader('Connection', 'close');
    return writeHead.apply(this, args);
  } as ServerResponse['writeHead'];
}
