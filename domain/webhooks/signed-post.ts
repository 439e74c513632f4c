import type { LookupFunction } from 'node:net';
import { createHmac } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import { assertWebhookUrl, guardedLookup, type UrlPolicy } from './ssrf';
import { clock } from '../clock';

/**
 * Outgoing webhooks of both products (compliance events, finished speech generations) are signed
 * and sent the same way, so a receiver verifies them with one piece of code (design.md).
 */

/** `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>` (design.md). */
export function signPayload(secret: string, timestamp: number, body: string): string {
  const v1 = createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
  return `t=${timestamp},v1=${v1}`;
}

/** Headers a caller may not set on a delivery: the transport and the signature are ours. */
export const RESERVED_WEBHOOK_HEADERS = new Set([
  'content-type',
  'content-length',
  'transfer-encoding',
  'host',
  'connection',
  'user-agent',
  'x-service-signature',
  'webhook-id',
  'webhook-timestamp',
]);

export interface SignedPost {
  url: string;
  secret: string;
  /** Stable across retries of the same delivery, so receivers de-duplicate on it (`webhook-id`). */
  deliveryId: string;
  body: string;
  /** The caller's own headers, sent beside (never instead of) the signature headers. */
  extraHeaders?: Record<string, string>;
  policy: UrlPolicy;
  timeoutMs: number;
  userAgent: string;
}

/**
 * One signed POST; resolves with the status code. The URL is checked again (DNS may have changed
 * since it was accepted) and the address connected to is the address checked. No redirects are
 * followed (a redirect is not a delivery).
 */
export async function postSigned(p: SignedPost): Promise<number> {
  const url = await assertWebhookUrl(p.url, p.policy);
  const timestamp = Math.floor(clock.nowMs() / 1000);
  const client = url.protocol === 'https:' ? https : http;
  return new Promise<number>((resolve, reject) => {
    const req = client.request(
      url,
      {
        method: 'POST',
        lookup: guardedLookup(p.policy) as unknown as LookupFunction,
        timeout: p.timeoutMs,
        headers: {
          ...(p.extraHeaders ?? {}),
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(p.body),
          'user-agent': p.userAgent,
          'x-service-signature': signPayload(p.secret, timestamp, p.body),
          'webhook-id': p.deliveryId,
          'webhook-timestamp': String(timestamp),
        },
      },
      (res) => {
        res.resume(); // the body does not matter; drain it so the socket is freed
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', reject);
      },
    );
    const overall = setTimeout(() => req.destroy(new Error(`timed out after ${p.timeoutMs} ms`)), p.timeoutMs);
    req.on('timeout', () => req.destroy(new Error(`timed out after ${p.timeoutMs} ms`)));
    req.on('error', reject);
    req.on('close', () => clearTimeout(overall));
    req.end(p.body);
  });
}
