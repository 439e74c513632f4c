import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedDelivery {
  path: string;
  headers: http.IncomingHttpHeaders;
  raw: string;
  body: any;
  /** When it arrived (ms since the epoch). */
  at: number;
}

/**
 * A real webhook receiver on loopback. Every delivery is kept with its path, so one receiver serves
 * several webhooks (`${url}/a`, `${url}/b`); `verified(path, secret)` checks each signature. It can
 * be closed (a receiver that is down) and opened again on the same port (`reopen`), and told to
 * answer the next deliveries with other statuses (`answer([500, 503])`, then 200 again).
 */
export async function startWebhookReceiver() {
  const received: ReceivedDelivery[] = [];
  let plan: number[] = [];
  let server!: http.Server;
  const open = (port: number) =>
    new Promise<number>((resolve) => {
      server = http.createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c) => chunks.push(c));
        req.on('end', () => {
          const raw = Buffer.concat(chunks).toString('utf8');
          received.push({ path: req.url ?? '/', headers: req.headers, raw, body: JSON.parse(raw), at: Date.now() });
          res.statusCode = plan.length ? plan.shift()! : 200;
          res.end('ok');
        });
      });
      server.listen(port, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
    });
  const port = await open(0);
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    /** Deliveries to one path, each signature checked against the webhook's secret (throws if one is wrong). */
    verified(path: string, secret: string): any[] {
      return received
        .filter((r) => r.path === path)
        .map((r) => {
          if (!signatureValid(secret, String(r.headers['x-service-signature'] ?? ''), r.raw)) throw new Error(`bad signature on a delivery to ${path}`);
          return r.body;
        });
    },
    answer(statuses: number[]) {
      plan = [...statuses];
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
    reopen: () => open(port),
  };
}

/** `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>` (design.md). */
export function signatureValid(secret: string, header: string, raw: string): boolean {
  return signedAt(secret, header, raw) !== null;
}

/** The signature's time (unix seconds) when it is valid for `secret` and `raw`, else null. */
export function signedAt(secret: string, header: string, raw: string): number | null {
  const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header);
  return m && createHmac('sha256', secret).update(`${m[1]}.${raw}`).digest('hex') === m[2] ? Number(m[1]) : null;
}
