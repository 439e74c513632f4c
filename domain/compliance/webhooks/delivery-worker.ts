import { createHmac } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { EntityManager } from '@mikro-orm/postgresql';
import { assertWebhookUrl, guardedLookup, type UrlPolicy } from './ssrf';
import { Poller } from '../../jobs/poller';
import { Webhook } from './webhook.entity';
import { clock } from '../../clock';

export interface DeliverySettings {
  /** First retry delay; doubles per attempt (with jitter) up to maxDelayMs. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** Attempts before a delivery is given up as failed. */
  maxAttempts: number;
  timeoutMs: number;
  pollIntervalMs: number;
  leaseMs: number;
  concurrency: number;
}

export const DEFAULT_DELIVERY_SETTINGS: DeliverySettings = {
  baseDelayMs: 1000,
  maxDelayMs: 30 * 60_000,
  maxAttempts: 15,
  timeoutMs: 10_000,
  pollIntervalMs: 500,
  leaseMs: 30_000,
  concurrency: 4,
};

interface ClaimedDelivery {
  id: string;
  webhook_id: string;
  event_id: string;
  type: string;
  payload: Record<string, unknown> | string;
  attempts: number;
}

/** `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>` (design.md). */
export function signPayload(secret: string, timestamp: number, body: string): string {
  const v1 = createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
  return `t=${timestamp},v1=${v1}`;
}

/** Delay before the next attempt: exponential, capped, with jitter so retries of many receivers spread out. */
export function retryDelayMs(attempt: number, s: Pick<DeliverySettings, 'baseDelayMs' | 'maxDelayMs'>, random = Math.random): number {
  const exp = Math.min(s.maxDelayMs, s.baseDelayMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(exp * (0.75 + 0.5 * random()));
}

export interface DeliveryOutcome {
  outcome: 'delivered' | 'retry' | 'failed';
  statusCode?: number;
  error?: string;
}

/**
 * Sends the webhook outbox. Each pending delivery that is due is claimed with
 * `FOR UPDATE SKIP LOCKED` under a lease (so several instances share the work and a crashed
 * sender's deliveries are picked up again), POSTed with its signature, then marked delivered or
 * rescheduled with backoff, and failed after the last attempt.
 */
export class DeliveryWorker {
  readonly settings: DeliverySettings;
  private readonly poller: Poller<ClaimedDelivery>;

  constructor(
    private readonly rootEm: EntityManager,
    private readonly deps: { instanceId: string; policy: UrlPolicy; onOutcome?: (o: DeliveryOutcome) => void; onError?: (err: unknown) => void },
    settings: Partial<DeliverySettings> = {},
  ) {
    this.settings = { ...DEFAULT_DELIVERY_SETTINGS, ...settings };
    this.poller = new Poller({
      intervalMs: () => this.settings.pollIntervalMs,
      concurrency: () => this.settings.concurrency,
      claim: () => this.claim(),
      run: (delivery) => this.deliver(delivery),
      onError: (err) => this.deps.onError?.(err),
    });
  }

  start() {
    this.poller.start();
  }

  async stop() {
    await this.poller.stop();
  }

  kick() {
    this.poller.kick();
  }

  private async claim(): Promise<ClaimedDelivery | null> {
    const rows = await this.rootEm.getConnection().execute<ClaimedDelivery[]>(
      `update webhook_deliveries
          set locked_by = ?, locked_until = ?, attempts = attempts + 1
        where id = (
          select id from webhook_deliveries
           where status = 'pending' and next_attempt_at <= ? and (locked_until is null or locked_until < ?)
           order by next_attempt_at
           for update skip locked
           limit 1)
        returning id, webhook_id, event_id, type, payload, attempts`,
      [this.deps.instanceId, new Date(clock.nowMs() + this.settings.leaseMs), clock.now(), clock.now()],
      'all',
    );
    return rows[0] ?? null;
  }

  private async deliver(d: ClaimedDelivery) {
    const em = this.rootEm.fork() as EntityManager;
    const hook = await em.findOne(Webhook, d.webhook_id);
    if (!hook || !hook.active) return this.settle(d, { outcome: 'failed', error: 'webhook deleted' });
    const payload = typeof d.payload === 'string' ? JSON.parse(d.payload) : d.payload;
    let result: DeliveryOutcome;
    try {
      const status = await this.post(hook, d, JSON.stringify(payload));
      result = status >= 200 && status < 300 ? { outcome: 'delivered', statusCode: status } : { outcome: 'retry', statusCode: status, error: `receiver answered ${status}` };
    } catch (err: any) {
      result = { outcome: 'retry', error: String(err?.message ?? err).slice(0, 500) };
    }
    if (result.outcome === 'retry' && d.attempts >= this.settings.maxAttempts) result = { ...result, outcome: 'failed' };
    await this.settle(d, result);
  }

  /** Records the outcome, only while this instance still holds the lease. */
  private async settle(d: ClaimedDelivery, r: DeliveryOutcome) {
    const conn = this.rootEm.getConnection();
    const common = [r.statusCode ?? null, r.error ?? null, d.id, this.deps.instanceId];
    if (r.outcome === 'delivered') {
      await conn.execute(
        `update webhook_deliveries set status = 'delivered', delivered_at = ?, last_status_code = ?, last_error = ?, locked_by = null, locked_until = null
          where id = ? and locked_by = ? and status = 'pending'`,
        [clock.now(), ...common],
        'run',
      );
    } else if (r.outcome === 'failed') {
      await conn.execute(
        `update webhook_deliveries set status = 'failed', last_status_code = ?, last_error = ?, locked_by = null, locked_until = null
          where id = ? and locked_by = ? and status = 'pending'`,
        common,
        'run',
      );
    } else {
      const delay = retryDelayMs(d.attempts, this.settings);
      await conn.execute(
        `update webhook_deliveries set next_attempt_at = ?, last_status_code = ?, last_error = ?, locked_by = null, locked_until = null
          where id = ? and locked_by = ? and status = 'pending'`,
        [new Date(clock.nowMs() + delay), ...common],
        'run',
      );
    }
    this.deps.onOutcome?.(r);
  }

  /** One POST; resolves with the status code. No redirects are followed (a redirect is not a delivery). */
  private async post(hook: Webhook, d: ClaimedDelivery, body: string): Promise<number> {
    const url = await assertWebhookUrl(hook.url, this.deps.policy); // again: DNS may have changed since registration
    const timestamp = Math.floor(clock.nowMs() / 1000);
    const client = url.protocol === 'https:' ? https : http;
    return new Promise<number>((resolve, reject) => {
      const req = client.request(
        url,
        {
          method: 'POST',
          lookup: guardedLookup(this.deps.policy) as any,
          timeout: this.settings.timeoutMs,
          headers: {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
            'user-agent': 'compliance-gateway-webhooks/1',
            'x-service-signature': signPayload(hook.secret, timestamp, body),
            'webhook-id': d.event_id,
            'webhook-timestamp': String(timestamp),
          },
        },
        (res) => {
          res.resume(); // the body does not matter; drain it so the socket is freed
          res.on('end', () => resolve(res.statusCode ?? 0));
          res.on('error', reject);
        },
      );
      const overall = setTimeout(() => req.destroy(new Error(`timed out after ${this.settings.timeoutMs} ms`)), this.settings.timeoutMs);
      req.on('timeout', () => req.destroy(new Error(`timed out after ${this.settings.timeoutMs} ms`)));
      req.on('error', reject);
      req.on('close', () => clearTimeout(overall));
      req.end(body);
    });
  }
}
