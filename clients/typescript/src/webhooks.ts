import type { WebhookEventType } from './generated/constants';

/** Loaded when used, so the rest of the client bundles for browsers (webhooks are verified on servers). */

const crypto = (): typeof import('node:crypto') => require('node:crypto');

/** A webhook delivery's body: `{id, type, data, createdAt}`. */
export interface WebhookEvent<T = Record<string, unknown>> {
  id: string;
  type: WebhookEventType | (string & {});
  data: T;
  createdAt: string;
}

export class WebhookSignatureError extends Error {
  override readonly name = 'WebhookSignatureError';
}

export interface VerifyOptions {
  /** Largest accepted age of the signature's timestamp, in seconds (default 300); replays older than this fail. */
  toleranceSeconds?: number;
  /** The current time in unix seconds (for tests). */
  now?: number;
}

/**
 * Verifies a webhook delivery and returns its event. The gateway signs every delivery with the
 * webhook's secret: `x-service-signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`.
 * Pass the raw body exactly as received (before any JSON parsing). Throws WebhookSignatureError on a
 * missing, malformed, wrong or stale signature: answer 401 then, and 2xx after processing.
 */
export function verifyWebhook<T = Record<string, unknown>>(
  rawBody: string | Uint8Array,
  signatureHeader: string | string[] | null | undefined,
  secret: string,
  options: VerifyOptions = {},
): WebhookEvent<T> {
  const header = Array.isArray(signatureHeader) ? signatureHeader[0] : signatureHeader;
  if (!header) throw new WebhookSignatureError('missing x-service-signature header');
  if (!secret) throw new WebhookSignatureError('no webhook secret given');
  let timestamp: string | undefined;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't') timestamp = value;
    else if (key === 'v1') signatures.push(value);
  }
  if (!timestamp || !/^\d+$/.test(timestamp) || !signatures.length) throw new WebhookSignatureError('malformed x-service-signature header');
  const body = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : Buffer.from(rawBody.buffer, rawBody.byteOffset, rawBody.byteLength);
  const { createHmac, timingSafeEqual } = crypto();
  const expected = createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest();
  const matches = signatures.some((s) => /^[0-9a-f]{64}$/i.test(s) && timingSafeEqual(Buffer.from(s, 'hex'), expected));
  if (!matches) throw new WebhookSignatureError('signature does not match');
  const now = options.now ?? Math.floor(Date.now() / 1000);
  const tolerance = options.toleranceSeconds ?? 300;
  if (Math.abs(now - Number(timestamp)) > tolerance) throw new WebhookSignatureError(`signature timestamp is more than ${tolerance} s away from now`);
  try {
    return JSON.parse(body.toString('utf8')) as WebhookEvent<T>;
  } catch {
    throw new WebhookSignatureError('body is not JSON');
  }
}

/** Signs a body as the gateway does (for a receiver's own tests). */
export function signWebhook(rawBody: string, secret: string, timestamp = Math.floor(Date.now() / 1000)): string {
  return `t=${timestamp},v1=${crypto().createHmac('sha256', secret).update(`${timestamp}.${rawBody}`).digest('hex')}`;
}
